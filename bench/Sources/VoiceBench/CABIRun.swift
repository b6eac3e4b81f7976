import CVoiceChatABI
import Foundation
import Synchronization
import VoiceChatC
import VoiceCore
import VoiceEngine
import VoiceIO

#if canImport(Glibc)
    import Glibc
#endif

/// The listeners `bench/run c-abi` measures, each hearing a `voicechat join` speaker through a
/// `voicechat relay`: one through the C ABI with the game's own audio, one through the Swift API's tick.
final class CABIRun {
    struct Measurement {
        var cpuPerSecond: Double
        var heard: Bool
        var calls = 0
        var allocations = 0
        var longestCallMilliseconds = 0.0
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let seconds: Double
    private let voicechat: String
    private let directory: String
    private let secret: String
    private let relay: ChildProcess
    private let relayPort: Int
    private var listeners = 0

    init(seconds: Double) throws {
        guard let voicechat = ProcessInfo.processInfo.environment["VOICECHAT_BIN"] else {
            throw Failure(description: "VOICECHAT_BIN is not set: run this through bench/run, which builds voicechat")
        }
        self.seconds = seconds
        self.voicechat = voicechat
        directory = FileManager.default.temporaryDirectory.path + "/c-abi-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        secret = directory + "/relay.secret"
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(secret, 0o600)
        relayPort = try E2ERun.freePort()
        relay = try ChildProcess(
            label: "relay", executable: voicechat,
            arguments: ["relay", "--host", "127.0.0.1", "--port", "\(relayPort)", "--secret-file", secret])
        guard relay.waitForLine(containing: "relay listening", timeout: 20) != nil else {
            throw Failure(description: "the relay did not start")
        }
    }

    func stop() {
        relay.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func token(_ name: String) throws -> String {
        try runToCompletion(
            voicechat, ["token", "--secret-file", secret, "--match", "bench", "--participant", name, "--ttl", "600"]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A `voicechat join` that says the fixture in channel all, for the listener to hear.
    private func startSpeaker() throws -> ChildProcess {
        let fixtures = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? "Fixtures"
        return try ChildProcess(
            label: "speaker", executable: voicechat,
            arguments: [
                "join", "--relay", "127.0.0.1:\(relayPort)", "--match", "bench", "--name", "speaker", "--token",
                try token("speaker"), "--channel", "all", "--input", fixtures + "/speech-female.wav", "--output",
                "/dev/null", "--no-console",
            ])
    }

    /// This process's CPU per second for a thread that only wakes every `period` and does nothing:
    /// the game's own audio callback, which exists whether or not it calls the engine.
    func measureEmptyLoop(period: MediaTime) throws -> Double {
        let stop = Atomic<Bool>(false)
        let loop = try AudioThread(name: "bench-empty-loop", scheduling: .normal) { _ in
            var next = MediaTime.monotonicNow()
            while !stop.load(ordering: .relaxed) {
                next += period
                MediaTime.sleep(until: next)
            }
        }
        let before = Self.processCPUSeconds()
        MediaTime.sleep(until: MediaTime.monotonicNow() + MediaTime.milliseconds(seconds * 1_000))
        let cpu = Self.processCPUSeconds() - before
        stop.store(true, ordering: .relaxed)
        loop.join()
        return cpu / seconds
    }

    /// Runs `block` on a thread of its own every `period` on the real clock; it returns the output
    /// level it saw. Measures this process's CPU and the thread's allocations over `seconds` once
    /// the listener hears the speaker (or after 5 s).
    private func measure(
        period: MediaTime, _ block: @escaping @Sendable () -> (heard: Bool, call: MediaTime)
    ) throws -> Measurement {
        let speaker = try startSpeaker()
        defer { speaker.stop() }
        let stop = Atomic<Bool>(false)
        let heard = Atomic<Bool>(false)
        let measuring = Atomic<Bool>(false)
        let calls = Atomic<Int>(0)
        let longest = Atomic<Int>(0)
        let loop = try AudioThread(name: "bench-game-audio", scheduling: .normal) { _ in
            var next = MediaTime.monotonicNow()
            while !stop.load(ordering: .relaxed) {
                next += period
                MediaTime.sleep(until: next)
                let (loud, call) = block()
                if loud { heard.store(true, ordering: .relaxed) }
                if measuring.load(ordering: .relaxed) {
                    calls.add(1, ordering: .relaxed)
                    longest.max(Int(call), ordering: .relaxed)
                }
            }
        }
        defer {
            stop.store(true, ordering: .relaxed)
            loop.join()
        }
        let waitUntil = MediaTime.monotonicNow() + MediaTime.milliseconds(5_000)
        while !heard.load(ordering: .relaxed) && MediaTime.monotonicNow() < waitUntil {
            MediaTime.sleep(until: MediaTime.monotonicNow() + MediaTime.milliseconds(20))
        }
        heard.store(false, ordering: .relaxed)
        guard let thread = loop.systemThread else { throw Failure(description: "the audio loop is not running") }
        let before = Self.processCPUSeconds()
        measuring.store(true, ordering: .relaxed)
        AllocationCounter.start(threads: [thread])
        MediaTime.sleep(until: MediaTime.monotonicNow() + MediaTime.milliseconds(seconds * 1_000))
        let allocations = AllocationCounter.stop()
        measuring.store(false, ordering: .relaxed)
        let cpu = Self.processCPUSeconds() - before
        return Measurement(
            cpuPerSecond: cpu / seconds, heard: heard.load(ordering: .relaxed),
            calls: calls.load(ordering: .relaxed), allocations: allocations,
            longestCallMilliseconds: Double(longest.load(ordering: .relaxed)) / 1e6)
    }

    /// The listener through the C ABI, its audio the game's: blocks of `blockFrames` at `rate`.
    func measureProcessLoop(rate: Int, blockFrames: Int) throws -> Measurement {
        listeners += 1
        let name = "listener-\(listeners)"
        let participant = strdup(name)!
        let host = strdup("127.0.0.1")!
        defer {
            free(participant)
            free(host)
        }
        var options = vc_engine_options()
        cEngineOptionsInit(&options)
        options.participant = UnsafePointer(participant)
        options.audio_mode = VC_AUDIO_GAME
        options.sample_rate = UInt32(rate)
        options.block_frames = UInt32(blockFrames)
        options.udp_host = UnsafePointer(host)
        var engine: OpaquePointer?
        try Self.check(cEngineCreate(&options, &engine), "vc_engine_create")
        defer { _ = cEngineDestroy(engine) }
        try Self.check(cEngineStart(engine), "vc_engine_start")
        let token = strdup(try self.token(name))!
        let matchID = strdup("bench")!
        defer {
            free(token)
            free(matchID)
        }
        var join = vc_relay_join_options()
        cRelayJoinOptionsInit(&join)
        join.match = UnsafePointer(matchID)
        join.host = UnsafePointer(host)
        join.port = UInt16(relayPort)
        join.token = UnsafePointer(token)
        var match: OpaquePointer?
        try Self.check(cMatchJoinRelay(engine, &join, &match), "vc_match_join_relay")
        try "all".withCString { all in
            try Self.check(cMatchStartChannel(match, all), "vc_match_start_channel")
            try Self.check(cMatchSetActiveChannel(match, all), "vc_match_set_active_channel")
        }
        let buffers = AudioBuffers(frames: blockFrames)
        defer { buffers.free() }
        let handle = UInt(bitPattern: engine)
        return try measure(period: MediaTime.duration(ofFrames: Int64(blockFrames), rate: rate)) {
            let started = MediaTime.monotonicNow()
            _ = cEngineProcess(
                OpaquePointer(bitPattern: handle), buffers.silence, buffers.output, blockFrames)
            let call = MediaTime.monotonicNow() - started
            return (buffers.isOutputLoud, call)
        }
    }

    /// The same listener through the Swift API: no devices, ticked every 20 ms by the app's thread.
    func measureSwiftTick() throws -> Measurement {
        listeners += 1
        let name = "listener-\(listeners)"
        let token = try self.token(name)
        let port = relayPort
        var configuration = EngineConfiguration()
        // A game's real microphone and speaker, as the C ABI's game audio has by default.
        configuration.echoCancellation = .on
        let settings = configuration
        let engine = try runBlocking { () async throws -> (VoiceEngine, UDPNetwork, RelayMatchClient, Match) in
            let network = try await UDPNetwork.bind(host: "127.0.0.1", port: 0)
            let engine = try VoiceEngine(
                participant: ParticipantID(name), configuration: settings, network: network, relays: RelayLinks())
            network.deliver(to: engine)
            let client = try await RelayMatchClient.connect(
                host: "127.0.0.1", port: port, token: token, participant: ParticipantID(name))
            let match = try Match(
                engine: engine, client: client, matchID: "bench", players: [],
                relay: RelayOptions(host: "127.0.0.1", port: port, token: token))
            client.attach(match)
            let channel = try match.voiceChat(named: "all")
            try channel.start()
            try channel.setActive(true)
            return (engine, network, client, match)
        }
        try engine.0.startDelivering()
        defer {
            engine.3.disconnect()
            engine.0.shutDown()
            _ = try? runBlocking {
                await engine.2.close()
                await engine.1.close()
            }
        }
        let frame = engine.0.frameSamples
        let buffers = AudioBuffers(frames: frame)
        defer { buffers.free() }
        let voiceEngine = engine.0
        return try measure(period: VoiceDefaults.frameDuration.nanoseconds) {
            let started = MediaTime.monotonicNow()
            voiceEngine.tick(
                at: started, captured: UnsafeBufferPointer(start: buffers.silence, count: frame),
                output: UnsafeMutableBufferPointer(start: buffers.output, count: frame))
            return (buffers.isOutputLoud, MediaTime.monotonicNow() - started)
        }
    }

    private static func check(_ result: vc_result, _ call: String) throws {
        guard result == VC_OK else {
            throw Failure(description: "\(call) failed: \(String(cString: cLastErrorMessage()!))")
        }
    }

    /// User and system CPU of this whole process, seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// A block of silence for the microphone and room for what is played, allocated once.
private final class AudioBuffers: @unchecked Sendable {
    let frames: Int
    let silence: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<Float>

    init(frames: Int) {
        self.frames = frames
        silence = .allocate(capacity: frames)
        silence.initialize(repeating: 0, count: frames)
        output = .allocate(capacity: frames)
        output.initialize(repeating: 0, count: frames)
    }

    func free() {
        silence.deallocate()
        output.deallocate()
    }

    /// Whether the last block played held anything above -60 dBFS.
    var isOutputLoud: Bool {
        for index in 0..<frames where abs(output[index]) > 0.001 { return true }
        return false
    }
}
