import Foundation
import VoiceCore
import VoiceDevices
import VoiceSimulation
import VoiceTestHarness

/// One end-to-end run: two `voicechat` processes as a user runs them (`join` through a relay, or
/// `listen` and `call` on direct UDP), on real-time-paced ALSA devices of one sound server (see
/// `E2EDevices`); alice's UDP toward bob crosses an impairment proxy. The fixture is played into
/// alice's microphone while the benchmark records, in the same server cycles, what it played
/// (channel 0) and what bob's speaker put out (channel 1), so their offset is the mouth-to-ear
/// delay and nothing of the recording's own.
struct E2ERun {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Recording {
        var reference: [Float]
        var heard: [Float]
        /// Bob's last statistics line (`--stats-json`), as JSON.
        var listenerStatistics: [String: Any]
        /// Alice's, for her microphone's side of the devices.
        var talkerStatistics: [String: Any]
        var proxy: ImpairmentProxy.Counts
        var machine: MachineStallReport
        /// The CPU time (user + system) bob's and alice's processes used while the call played, as
        /// a share of one core.
        var listenerCPUShare: Double?
        var talkerCPUShare: Double?
        /// The device loop's process (`.deviceLoop` only): what moving audio through the same
        /// devices costs a process that does nothing else.
        var deviceLoopCPUShare: Double?
    }

    /// How the two players reach each other.
    enum Topology: String, CaseIterable {
        /// `join` through `voicechat relay`, voice kept on the relay (`--path relay`); alice's
        /// UDP to the relay crosses the proxy.
        case relay
        /// `listen` and `call` on direct UDP: bob offers the proxy's address for direct UDP
        /// (`--advertise`), so alice's voice to him crosses it, and alice calls through it; alice
        /// offers an address nobody answers on, so that bob reaches her only by answering.
        case direct
    }

    enum Chain {
        /// The two processes, alice's UDP toward bob impaired.
        case call(Topology, conditions: NetworkConditions, seed: UInt64)
        /// The device floor: alice's microphone port copied to bob's speaker port by a bare
        /// device loop with the CLI's period and the shortest buffer (two periods): the least
        /// delay these devices allow (the engine keeps its speaker's queue short; a copy loop
        /// with the CLI's four-period buffer keeps it full, and would stand 20 ms higher).
        case deviceLoop
    }

    let voicechat: String
    let devices: E2EDevices
    let frameMilliseconds: Double
    /// The players' delay budget, when not the CLI's default.
    let maximumDelayMilliseconds: Double?
    /// The players' `--echo-cancel`, when not the CLI's default.
    let echoCancellation: String?
    let periodFrames: Int
    let signal: [Float]
    let tag: String
    let directory: String

    /// Runs `chain` and records.
    func record(_ chain: Chain) throws -> Recording {
        let watch = MachineStallWatch()
        defer { _ = watch.finish() }
        let configuration = try writeALSAConfiguration()
        defer { try? FileManager.default.removeItem(atPath: configuration) }
        setenv("ALSA_CONFIG_PATH", configuration, 1)
        for (name, value) in devices.environment { setenv(name, value, 1) }
        let environment = devices.environment.merging(["ALSA_CONFIG_PATH": configuration]) { $1 }
        var children: [ChildProcess] = []
        var proxy: ImpairmentProxy?
        defer {
            for child in children.reversed() { child.terminate() }
            proxy?.stop()
        }
        var statisticsFile: String?
        var talkerStatisticsFile: String?
        switch chain {
        case .deviceLoop:
            let copy = try ChildProcess(
                label: "device loop",
                arguments: [
                    "latency-peer", "--role", "copy", "--capture", "e2e_a_mic", "--playback", "e2e_b_spk",
                    "--period-frames", "\(periodFrames)", "--buffer-periods", "2",
                ], environment: environment)
            children.append(copy)
            guard copy.waitForLine(prefixes: ["ready"], timeout: 20) != nil else {
                throw Failure(description: "the device loop did not open its devices")
            }
        case .call(let topology, let conditions, let seed):
            let statistics = directory + "/bob-\(tag).jsonl"
            statisticsFile = statistics
            let talkerStatistics = directory + "/alice-\(tag).jsonl"
            talkerStatisticsFile = talkerStatistics
            switch topology {
            case .relay:
                try startRelayMatch(
                    conditions: conditions, seed: seed, statistics: statistics, talkerStatistics: talkerStatistics,
                    environment: environment,
                    children: &children, proxy: &proxy)
            case .direct:
                try startDirectCall(
                    conditions: conditions, seed: seed, statistics: statistics, talkerStatistics: talkerStatistics,
                    environment: environment,
                    children: &children, proxy: &proxy)
            }
        }
        let cpu = { (label: String) in children.first { $0.label == label }?.cpuSeconds }
        let before = (listener: cpu("bob"), talker: cpu("alice"), loop: cpu("device loop"))
        let start = monotonicNanoseconds()
        let recording = try play()
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        let share = { (now: Double?, then: Double?) in now.flatMap { now in then.map { (now - $0) / seconds } } }
        let listenerCPU = share(cpu("bob"), before.listener)
        let talkerCPU = share(cpu("alice"), before.talker)
        let loopCPU = share(cpu("device loop"), before.loop)
        return Recording(
            reference: stride(from: 0, to: recording.count - 1, by: 2).map { recording[$0] },
            heard: stride(from: 1, to: recording.count, by: 2).map { recording[$0] },
            listenerStatistics: Self.lastLine(of: statisticsFile),
            talkerStatistics: Self.lastLine(of: talkerStatisticsFile),
            proxy: proxy?.counts.withLock { $0 } ?? ImpairmentProxy.Counts(), machine: watch.finish(),
            listenerCPUShare: listenerCPU, talkerCPUShare: talkerCPU, deviceLoopCPUShare: loopCPU)
    }

    /// The settings both players run with besides the CLI's defaults: their devices, the frame
    /// length under test, no console, and the delay budget and echo canceller when given.
    private func playerArguments(_ name: String) -> [String] {
        [
            "--name", name, "--capture", "e2e_\(name.prefix(1))_mic", "--playback", "e2e_\(name.prefix(1))_spk",
            "--frame-ms", Self.format(frameMilliseconds), "--no-console",
        ] + (maximumDelayMilliseconds.map { ["--max-delay-ms", Self.format($0)] } ?? [])
            + (echoCancellation.map { ["--echo-cancel", $0] } ?? [])
    }

    /// The last line of a `--stats-json` file, as JSON; empty when there is none.
    private static func lastLine(of file: String?) -> [String: Any] {
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8),
            let last = text.split(separator: "\n").last,
            let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        else { return [:] }
        return object
    }

    private func startRelayMatch(
        conditions: NetworkConditions, seed: UInt64, statistics: String, talkerStatistics: String,
        environment: [String: String],
        children: inout [ChildProcess], proxy: inout ImpairmentProxy?
    ) throws {
        let secret = directory + "/relay-\(tag).secret"
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(secret, 0o600)
        let port = try Self.freePort()
        let relay = try ChildProcess(
            label: "relay", executable: voicechat,
            arguments: ["relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", secret],
            environment: environment)
        children.append(relay)
        guard relay.waitForLine(containing: "relay listening", timeout: 20) != nil else {
            throw Failure(description: "the relay did not start: \(relay.keptLines.joined(separator: " | "))")
        }
        let impaired = try ImpairmentProxy(targetPort: port, conditions: conditions, seed: seed)
        proxy = impaired
        func join(_ name: String, via relayPort: Int, extra: [String]) throws -> ChildProcess {
            let token = try SpeechScorer().run(
                voicechat, ["token", "--secret-file", secret, "--match", "e2e", "--participant", name, "--ttl", "600"]
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            let arguments =
                ["join", "--relay", "127.0.0.1:\(relayPort)", "--match", "e2e", "--token", token, "--channel", "all"]
                + ["--path", "relay"] + playerArguments(name) + extra
            return try ChildProcess(label: name, executable: voicechat, arguments: arguments, environment: environment)
        }
        let bob = try join("bob", via: port, extra: ["--stats-json", statistics])
        children.append(bob)
        let alice = try join("alice", via: impaired.port, extra: ["--stats-json", talkerStatistics])
        children.append(alice)
        try waitFor([(alice, "path to bob: relay"), (bob, "path to alice: relay")])
    }

    private func startDirectCall(
        conditions: NetworkConditions, seed: UInt64, statistics: String, talkerStatistics: String,
        environment: [String: String],
        children: inout [ChildProcess], proxy: inout ImpairmentProxy?
    ) throws {
        let port = try Self.freePort()
        let impaired = try ImpairmentProxy(targetPort: port, conditions: conditions, seed: seed)
        proxy = impaired
        let bob = try ChildProcess(
            label: "bob", executable: voicechat,
            arguments: ["listen", "--port", "\(port)", "--advertise", "127.0.0.1:\(impaired.port)"]
                + playerArguments("bob") + ["--stats-json", statistics],
            environment: environment)
        children.append(bob)
        try waitFor([(bob, "listening on port")])
        // Alice offers an address nobody answers on, as behind a NAT that lets only replies in:
        // otherwise bob's probes to her would show her his own address, and her voice could leave
        // the proxy for it.
        let nowhere = try Self.freePort()
        let alice = try ChildProcess(
            label: "alice", executable: voicechat,
            arguments: ["call", "127.0.0.1:\(impaired.port)", "--advertise", "127.0.0.1:\(nowhere)"]
                + playerArguments("alice") + ["--stats-json", talkerStatistics], environment: environment)
        children.append(alice)
        try waitFor([(alice, "call with bob started: path direct")])
    }

    /// Waits for each child to print its line, failing with what it printed instead.
    private func waitFor(_ lines: [(ChildProcess, String)]) throws {
        for (child, text) in lines where child.waitForLine(containing: text, timeout: 30) == nil {
            throw Failure(
                description: "\(child.label) never printed \"\(text)\": " + child.keptLines.joined(separator: " | "))
        }
    }

    /// Plays the signal into alice's microphone port and records it with bob's speaker port.
    private func play() throws -> [Float] {
        try devices.recorder(tag: tag, periodFrames: periodFrames).playAndRecord(signal)
    }

    private func writeALSAConfiguration() throws -> String {
        let text = "</usr/share/alsa/alsa.conf>\n" + devices.pcmDefinitions(tag: tag)
        let path = directory + "/asound-e2e-\(tag).conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A port free for both UDP and TCP on 127.0.0.1 at the time of asking.
    static func freePort() throws -> Int {
        let proxy = try ImpairmentProxy(targetPort: 9, conditions: NetworkConditions(baseDelayMilliseconds: 0), seed: 0)
        let port = proxy.port
        proxy.stop()
        return port
    }

    static func format(_ milliseconds: Double) -> String {
        milliseconds == milliseconds.rounded() ? String(Int(milliseconds)) : String(milliseconds)
    }
}
