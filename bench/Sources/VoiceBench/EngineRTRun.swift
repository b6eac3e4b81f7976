import Foundation
import Synchronization
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceMedia

#if canImport(Glibc)
    import Glibc
#endif

/// `bench/run engine-rt`'s run: a listener's real `VoiceEngine`, its engine thread on the real
/// clock, in a match with `speakers` engines that the harness ticks in real time over an
/// in-process transport (sealing on, shipped settings). First idle (the speakers send nothing),
/// then loaded: every speaker talks (a packet per frame), a second thread floods the listener
/// with signalling, and a third calls its API at 100 Hz.
struct EngineRTRun {
    struct Phase {
        var lateness: DurationHistogram
        /// How long calls, signalling and the statistics waited for the engine thread to run them,
        /// and how long it spent running them, each turn that had any.
        var commandWaits: DurationHistogram
        var commandRuns: DurationHistogram
        /// Allocations on the engine thread, and the wake-ups they were counted over.
        var allocations: Int
        var allocationWakes: Int
        var packetsReceived: Int
        /// How long the phase took on the real clock.
        var seconds: Double
        var signallingMessages: Int
        var apiCalls: Int
        /// How long each per-frame call (a volume, a position) took on the caller's thread, ns:
        /// handed over without waiting as the C ABI does (`VoiceEngine.hand`), and through the
        /// waiting Swift API (`VoiceChannel.setVolume`, `Match.setPosition`) in the same ticks.
        var handedCalls: [MediaTime] = []
        var waitingCalls: [MediaTime] = []
    }

    struct Result {
        var idle: Phase
        var loaded: Phase
        var realTimeScheduled: Bool
        var speakersHeard: Int
        /// The listener's echo canceller at the end.
        var echoCancellation: CaptureEchoCanceller.Statistics?
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let speech: [Float]
    let speakers: Int
    let seconds: Double
    let signallingPerSecond: Int
    let apiCallsPerSecond: Int

    func run() throws -> Result {
        // The listener's microphone and speaker: files paced by device threads of their own, as
        // ALSA devices are, so that echo cancellation is on as the CLI has it with sound devices.
        // The microphone reads the speech over and over for longer than the run.
        let directory = FileManager.default.temporaryDirectory.path + "/engine-rt-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let repeats = Int((2 * seconds + 10) * 48_000) / speech.count + 1
        let microphonePath = directory + "/microphone.wav"
        try WAVAudio(format: .engineMono, samples: Array([[Float]](repeating: speech, count: repeats).joined()))
            .write(toFile: microphonePath)
        let microphone = try WAVFileInput(path: microphonePath, pacing: .realTime)
        let speaker = try WAVFileOutput(
            path: directory + "/speaker.wav", channels: 2, pacing: .realTime, writesInBackground: true)
        let world = try InProcessMatch(
            players: speakers + 1, configuration: EngineConfiguration(), realTimePlayers: 1,
            firstPlayerDevices: (microphone, speaker))
        defer { for player in world.players { player.engine.shutDown() } }
        let listener = world.players[0]
        // Its microphone's frames have their echo removed and are metered, but are not sent:
        // thirty speakers decoding it would leave the harness behind the real clock.
        try listener.channel.setActive(false)
        try placeOnACircle(world)
        let frame = VoiceDefaults.frameDuration
        let samples = frame.engineFrames
        var stepIndex = 0
        var nextStep = MediaTime.monotonicNow()
        // One step of the speakers' world per frame, on the real clock's frame grid.
        func steps(for duration: Double, talking: Bool) {
            let count = Int(duration * 1_000 / frame.milliseconds)
            for _ in 0..<count {
                nextStep += frame.nanoseconds
                MediaTime.sleep(until: nextStep)
                world.clock.advance(by: frame.nanoseconds)
                world.deliver()
                for (number, player) in world.players.enumerated().dropFirst() {
                    let offset = (number * 83 * samples + stepIndex * samples) % (speech.count - samples)
                    var output = [Float](repeating: 0, count: samples)
                    output.withUnsafeMutableBufferPointer { output in
                        if talking {
                            speech[offset..<(offset + samples)].withUnsafeBufferPointer {
                                player.engine.tick(at: world.clock.now, captured: $0, output: output)
                            }
                        } else {
                            player.engine.tick(at: world.clock.now, captured: nil, output: output)
                        }
                    }
                }
                stepIndex += 1
            }
        }
        // Meeting: signalling, keys and paths settle while nobody talks.
        steps(for: 3, talking: false)
        // Only the listener is measured: each speaker mutes the others, whose voice it then opens
        // but never decodes, so that the harness keeps up with the real clock on a small machine.
        for speaker in world.players.dropFirst() {
            for other in world.players.dropFirst() where other !== speaker {
                try speaker.channel.setPlayer(other.name, muted: true)
            }
        }
        // Messages to replay at the listener: a speaker's keys (unwrapped and found installed
        // already) and reliable game data (an event for the app), as a busy client sends them.
        let keys = world.signallingSent { bytes, _, to in
            to == listener.name && String(decoding: bytes, as: UTF8.self).contains("\"type\":\"keys\"")
        }
        try world.players[1].match.send(Array(repeating: 7, count: 100), to: [listener.name], mode: .reliable)
        steps(for: 0.1, talking: false)
        let gameData = world.signallingSent { bytes, _, to in
            to == listener.name && String(decoding: bytes, as: UTF8.self).contains("\"type\":\"game-data\"")
        }
        guard let key = keys.first, let data = gameData.first else {
            throw Failure(description: "no keys or game data were sent to the listener to replay")
        }
        let flood = [key, data]

        let idle = try measure(listener, world: world, load: false, flood: flood) {
            steps(for: seconds, talking: false)
        }
        // The speakers start talking; the listener's streams and the first frames settle first.
        steps(for: 2, talking: true)
        let loaded = try measure(listener, world: world, load: true, flood: flood) {
            steps(for: seconds, talking: true)
        }
        let heard = listener.engine.statistics().filter {
            ($0.streams.values.first?.receive.packetsReceived ?? 0) > 0
        }.count
        return Result(
            idle: idle, loaded: loaded, realTimeScheduled: listener.engine.isEngineThreadRealTime, speakersHeard: heard,
            echoCancellation: listener.engine.echoCancellation)
    }

    /// Runs `body` (the speakers' steps) with or without the flood and API threads, and measures
    /// the listener's engine thread meanwhile.
    private func measure(
        _ listener: InProcessMatch.Player, world: InProcessMatch, load: Bool, flood: [[UInt8]], body: () -> Void
    ) throws -> Phase {
        let engine = listener.engine
        guard let engineThread = engine.engineSystemThread, let before = engine.engineThreadLateness,
            let runsBefore = engine.engineCommandRuns
        else {
            throw Failure(description: "the listener's engine thread is not running")
        }
        let packetsBefore = packetsReceived(engine)
        let waitsBefore = engine.engineCommandWaits
        let stop = Atomic<Bool>(false)
        let signalled = Atomic<Int>(0)
        let called = Atomic<Int>(0)
        let callDurations = LockedValue<(handed: [MediaTime], waiting: [MediaTime])>(([], []))
        /// A thread that runs `body` `perSecond` times a second on the real clock's grid until `stop`.
        func paced(_ name: String, perSecond: Int, _ body: @escaping @Sendable () -> Void) throws -> AudioThread {
            let period = MediaTime(1_000_000_000 / perSecond)
            return try AudioThread(name: name, scheduling: .normal) { _ in
                var next = MediaTime.monotonicNow()
                while !stop.load(ordering: .relaxed) {
                    next += period
                    MediaTime.sleep(until: next)
                    body()
                }
            }
        }
        var helpers: [AudioThread] = []
        if load {
            let sender = world.players[1].name
            let match = listener.match
            let speakers = world.players.count - 1
            let speakerNames = world.players.dropFirst().map(\.name)
            let channel = listener.channel
            helpers.append(
                try paced("bench-signalling", perSecond: signallingPerSecond) {
                    let count = signalled.add(1, ordering: .relaxed).newValue
                    match.received(flood[count % flood.count], from: sender)
                })
            helpers.append(
                try paced("bench-api", perSecond: apiCallsPerSecond) {
                    let count = called.add(1, ordering: .relaxed).newValue
                    // What a game does: reads the meters and statistics, moves a volume, and moves
                    // a player (one a call, out and back by a metre).
                    _ = engine.statistics()
                    let volume: Float = count % 2 == 0 ? 1 : 0.9
                    let speaker = 1 + count % speakers
                    let position = Self.circlePosition(speaker, of: speakers, radius: count % 3 == 0 ? 21 : 20)
                    let name = speakerNames[speaker - 1]
                    // As the C ABI's per-frame calls do: handed over without waiting.
                    var started = MediaTime.monotonicNow()
                    try? engine.hand(.channelVolume(volume, channel: channel.number, match: match.matchID))
                    let handedVolume = MediaTime.monotonicNow() - started
                    started = MediaTime.monotonicNow()
                    try? engine.hand(.playerPosition(position, player: name, match: match.matchID))
                    let handedPosition = MediaTime.monotonicNow() - started
                    // The same through the Swift API, which waits for the engine thread's turn.
                    started = MediaTime.monotonicNow()
                    try? channel.setVolume(volume)
                    let waitedVolume = MediaTime.monotonicNow() - started
                    started = MediaTime.monotonicNow()
                    try? match.setPosition(position, of: name)
                    let waitedPosition = MediaTime.monotonicNow() - started
                    var durations = callDurations.value
                    durations.handed += [handedVolume, handedPosition]
                    durations.waiting += [waitedVolume, waitedPosition]
                    callDurations.value = durations
                })
        }
        let started = MediaTime.monotonicNow()
        AllocationCounter.start(threads: [engineThread])
        let allocationStart = engine.engineThreadLateness?.count ?? 0
        body()
        let allocations = AllocationCounter.stop()
        let elapsed = Double(MediaTime.monotonicNow() - started) / 1e9
        let allocationWakes = (engine.engineThreadLateness?.count ?? 0) - allocationStart
        stop.store(true, ordering: .relaxed)
        for helper in helpers { helper.join() }
        guard let after = engine.engineThreadLateness, let runsAfter = engine.engineCommandRuns else {
            throw Failure(description: "the listener's engine thread stopped")
        }
        return Phase(
            lateness: after.subtracting(before), commandWaits: engine.engineCommandWaits.subtracting(waitsBefore),
            commandRuns: runsAfter.subtracting(runsBefore),
            allocations: allocations, allocationWakes: allocationWakes,
            packetsReceived: packetsReceived(engine) - packetsBefore, seconds: elapsed,
            signallingMessages: signalled.load(ordering: .relaxed),
            apiCalls: called.load(ordering: .relaxed), handedCalls: callDurations.value.handed,
            waitingCalls: callDurations.value.waiting)
    }

    /// The match's channel made positional (range 100 m), the listener at the centre of a circle
    /// of the speakers, 20 m round, facing so that they are heard all round it, each player
    /// knowing where everyone stands: level and side are then worked out for every stream.
    static let proximity = try! ProximitySettings(range: 100, referenceDistance: 5)

    static func circlePosition(_ speaker: Int, of count: Int, radius: Float) -> VoicePosition {
        let angle = 2 * Float.pi * Float(speaker) / Float(count)
        return VoicePosition(x: radius * cos(angle), y: 0, z: radius * sin(angle))
    }

    private func placeOnACircle(_ world: InProcessMatch) throws {
        let positions =
            [VoicePosition.origin]
            + (1..<world.players.count).map { Self.circlePosition($0, of: world.players.count - 1, radius: 20) }
        for (index, player) in world.players.enumerated() {
            try player.channel.setProximity(Self.proximity)
            try player.match.setPosition(positions[index], right: VoicePosition(x: 1, y: 0, z: 0))
            for (other, position) in zip(world.players, positions) where other !== player {
                try player.match.setPosition(position, of: other.name)
            }
        }
    }

    private func packetsReceived(_ engine: VoiceEngine) -> Int {
        engine.statistics().reduce(0) { total, participant in
            total + participant.streams.values.reduce(0) { $0 + $1.receive.packetsReceived }
        }
    }
}
