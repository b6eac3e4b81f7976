import ArgumentParser
import Foundation
import Synchronization
import VoiceCore
import VoiceDevices
import VoiceSimulation
import VoiceTestHarness

#if canImport(Glibc)
    import Glibc
#endif

/// `bench/run chaos`: a live four-player match through `voicechat relay`, as users run it (four
/// `voicechat join` processes, CLI defaults but `--path relay` so that every voice crosses the
/// relay, WAV files for devices), while (a) junk UDP and TCP flood the relay, (b) the relay is
/// killed with SIGKILL and started again on its port, (c) alice's link (UDP and TCP to the relay,
/// through a proxy) is down for 2 s.
struct ChaosBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chaos",
        abstract: "A live 4-player match through floods, a relay killed and restarted, and a link down for 2 s.",
        discussion: """
            Each player sends a tone of its own frequency, loud and soft four times a second, and \
            records what it hears; a talker is heard in a 20 ms frame when its frequency stands out \
            (Goertzel). For each event: the longest gap in each talker's voice as the others heard it, \
            the time from the event's end to voice again, packets lost, and the relay's memory and \
            descriptors before and after. Changes one setting from the CLI's defaults: --path relay.
            """
    )

    @Option(help: "Seconds each flood lasts.")
    var floodSeconds = 5.0

    @Option(help: "Junk datagrams a second in the UDP flood.")
    var junkRate = 20_000

    static let players: [(name: String, frequency: Double)] = [
        ("alice", 440), ("bob", 620), ("carol", 820), ("dave", 1_040),
    ]

    func run() throws {
        guard let voicechat = ProcessInfo.processInfo.environment["VOICECHAT_BIN"] else {
            throw ValidationError("VOICECHAT_BIN is not set: run this through bench/run, which builds voicechat")
        }
        let directory = projectRoot + "/bench/reports/chaos"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let secret = directory + "/relay.secret"
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(secret, 0o600)
        let port = try E2ERun.freePort()
        let adminSocket = directory + "/relay.admin"
        let relayArguments = [
            "relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", secret, "--report-every", "0",
            "--admin-socket", adminSocket,
        ]
        var relay = try ChildProcess(label: "relay", executable: voicechat, arguments: relayArguments)
        defer { relay.terminate() }
        guard relay.waitForLine(containing: "relay listening", timeout: 20) != nil else {
            throw E2ERun.Failure(description: "the relay did not start: \(relay.keptLines.joined(separator: " | "))")
        }
        // Alice reaches the relay through a proxy that can pull her cable out.
        let link = try ImpairmentProxy(
            targetPort: port, conditions: NetworkConditions(baseDelayMilliseconds: 0), seed: 1)
        defer { link.stop() }

        let seconds = 24 + 3 * floodSeconds
        var joins: [ChildProcess] = []
        defer { for join in joins { join.terminate() } }
        let started = MediaTime.monotonicNow()
        for (index, player) in Self.players.enumerated() {
            let input = directory + "/\(player.name)-says.wav"
            try WAVAudio(format: .engineMono, samples: Self.tone(player.frequency, seconds: seconds + 5))
                .write(toFile: input)
            let token = try runToCompletion(
                voicechat,
                ["token", "--secret-file", secret, "--match", "chaos", "--participant", player.name, "--ttl", "600"]
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            joins.append(
                try ChildProcess(
                    label: player.name, executable: voicechat,
                    arguments: [
                        "join", "--relay", "127.0.0.1:\(index == 0 ? link.port : port)", "--match", "chaos",
                        "--name", player.name, "--token", token, "--channel", "all", "--path", "relay",
                        "--input", input, "--output", directory + "/\(player.name)-heard.wav",
                        "--stats-json", directory + "/\(player.name).jsonl", "--duration", String(seconds),
                        "--no-console",
                    ]))
        }
        for join in joins where join.waitForLine(containing: "joined;", timeout: 20) == nil {
            throw E2ERun.Failure(description: "\(join.label) did not join: \(join.keptLines.joined(separator: " | "))")
        }
        print(
            "four voicechat join processes at the CLI's defaults but --path relay (every voice crosses the relay), "
                + "with WAV files for devices")
        let watch = MachineStallWatch()
        var report = BenchmarkReport(bench: "chaos")
        func elapsed() -> Double { Double(MediaTime.monotonicNow() - started) / 1e9 }
        func wait(until time: Double) { while elapsed() < time { usleep(10_000) } }

        // (a) Floods, after as long a quiet stretch for the baseline.
        wait(until: max(1, 6 - floodSeconds))
        let quietStart = Self.packetCounts(directory, players: Self.players.map(\.name))
        wait(until: 6)
        let before = (rss: relay.residentBytes, descriptors: relay.openDescriptors)
        let lostBefore = Self.packetCounts(directory, players: Self.players.map(\.name))
        let flood = JunkFlood(port: port, datagramsPerSecond: junkRate)
        let floodStart = elapsed()
        wait(until: floodStart + floodSeconds)
        let floodCounts = flood.stop()
        let floodEnd = elapsed()
        wait(until: floodEnd + 1.5)
        let lostAfter = Self.packetCounts(directory, players: Self.players.map(\.name))
        let during = (rss: relay.residentBytes, descriptors: relay.openDescriptors)
        wait(until: floodEnd + 6)
        let afterFlood = (rss: relay.residentBytes, descriptors: relay.openDescriptors)
        let received = lostAfter.received - lostBefore.received
        let lost = lostAfter.lost - lostBefore.lost
        let lossPercent = Self.percent(lost: lost, received: received)
        let quietLossPercent = Self.percent(
            lost: lostBefore.lost - quietStart.lost, received: lostBefore.received - quietStart.received)
        print(
            String(
                format: "(a) flood: %d junk datagrams, %d TCP connections (%d held idle, %d sending junk) in %.0f s",
                floodCounts.datagrams, floodCounts.connections, floodCounts.idle, floodCounts.junk, floodSeconds))
        // What the relay made of it, by its own count.
        let relayCounts = (try? runToCompletion(voicechat, ["relay-admin", "--socket", adminSocket, "stats"])) ?? ""
        print("(a) the relay's totals after the flood:\n" + relayCounts, terminator: "")
        report.add(
            "(a) players' loss during the flood", lossPercent, unit: "%", baseline: quietLossPercent,
            target: .atMost(1))
        report.add(
            "(a) relay RSS growth", (during.rss - before.rss) / 1_048_576, unit: "MB", baseline: before.rss / 1_048_576,
            target: .atMost(8))
        report.add(
            "(a) relay descriptors after the flood", Double(afterFlood.descriptors), unit: "fds",
            baseline: Double(before.descriptors), target: .atMost(Double(before.descriptors)))

        // (b) The relay killed and started again.
        let killAt = elapsed()
        relay.killAbruptly()
        relay = try ChildProcess(label: "relay", executable: voicechat, arguments: relayArguments)
        guard relay.waitForLine(containing: "relay listening", timeout: 20) != nil else {
            throw E2ERun.Failure(description: "the relay did not restart: \(relay.keptLines.joined(separator: " | "))")
        }
        let restartedAt = elapsed()
        print(
            String(
                format: "(b) relay killed at %.2f s, listening again %.0f ms later", killAt,
                (restartedAt - killAt) * 1000))
        wait(until: restartedAt + 8)

        // (c) Alice's link down for 2 s.
        let cutAt = elapsed()
        link.isCut.store(true, ordering: .relaxed)
        wait(until: cutAt + 2)
        link.isCut.store(false, ordering: .relaxed)
        let restoredAt = elapsed()
        wait(until: seconds + 1)
        for join in joins { _ = join.waitForLine(containing: "left match", timeout: 15) }
        let machine = watch.finish()

        // What each heard, per talker and 20 ms frame. A heard file starts when its player's engine
        // started, up to a second or two after this clock's zero: each event is looked for in a
        // window 2 s wider on both sides, and recovery is read off the gap's length (the gap starts
        // when the event does, give or take the listener's constant playout delay).
        var heard: [String: [String: [Bool]]] = [:]
        for listener in Self.players {
            let samples = try WAVAudio(contentsOfFile: directory + "/\(listener.name)-heard.wav").samples
            for talker in Self.players where talker.name != listener.name {
                heard[listener.name, default: [:]][talker.name] = Self.presence(of: talker.frequency, in: samples)
            }
        }
        func longestGap(of talker: String, from start: Double, to end: Double) -> Double {
            Self.players.map(\.name).filter { $0 != talker }.compactMap { listener in
                heard[listener]?[talker].map { Self.longestGap($0, from: start - 2, to: end + 2) }
            }.max() ?? 0
        }
        let talkers = Self.players.map(\.name)
        let floodGap = talkers.map { longestGap(of: $0, from: floodStart, to: floodEnd) }.max() ?? 0
        report.add("(a) longest voice gap heard during the flood", floodGap * 1000, unit: "ms")
        let restartGap = talkers.map { longestGap(of: $0, from: killAt, to: restartedAt + 3) }.max() ?? 0
        // The baselines are the events' own lengths: the relay away, the link down.
        report.add(
            "(b) longest voice gap heard, relay killed and restarted", restartGap * 1000, unit: "ms",
            baseline: (restartedAt - killAt) * 1000)
        report.add(
            "(b) voice again after the relay listened again", max(0, restartGap - (restartedAt - killAt)), unit: "s",
            target: .atMost(2))
        let aliceGap = longestGap(of: "alice", from: cutAt, to: restoredAt + 2)
        report.add(
            "(c) alice's longest voice gap heard, link down 2 s", aliceGap * 1000, unit: "ms",
            baseline: (restoredAt - cutAt) * 1000)
        report.add(
            "(c) alice heard again after her link returned", max(0, aliceGap - (restoredAt - cutAt)), unit: "s",
            target: .atMost(1))
        let final = (rss: relay.residentBytes, descriptors: relay.openDescriptors)
        report.add(
            "relay descriptors at the end (restarted relay)", Double(final.descriptors), unit: "fds",
            baseline: Double(before.descriptors))
        print("machine: \(machine)")
        if !report.finish() { throw ExitCode.failure }
    }

    /// A tone at `frequency`, loud and soft four times a second (never silent), at −12 dBFS peak.
    static func tone(_ frequency: Double, seconds: Double) -> [Float] {
        (0..<Int(seconds * 48_000)).map { index in
            let time = Double(index) / 48_000
            let envelope = 0.6 + 0.4 * sin(2 * Double.pi * 4 * time)
            return Float(0.25 * envelope * sin(2 * Double.pi * frequency * time))
        }
    }

    /// Per 20 ms frame, whether `frequency` stands out (Goertzel amplitude above −40 dBFS).
    static func presence(of frequency: Double, in samples: [Float]) -> [Bool] {
        let frame = 960
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48_000)
        return stride(from: 0, to: samples.count - frame, by: frame).map { start in
            var previous = 0.0
            var beforePrevious = 0.0
            for value in samples[start..<(start + frame)] {
                let current = Double(value) + coefficient * previous - beforePrevious
                beforePrevious = previous
                previous = current
            }
            let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
            return (2 * max(power, 0)).squareRoot() / Double(frame) > 0.01
        }
    }

    /// The longest run of frames without the talker between `start` and `end` seconds, in seconds.
    static func longestGap(_ frames: [Bool], from start: Double, to end: Double) -> Double {
        let first = min(frames.count, max(0, Int(start / 0.02)))
        let last = max(first, min(frames.count, Int(end / 0.02)))
        var longest = 0
        var run = 0
        for present in frames[first..<last] {
            run = present ? 0 : run + 1
            longest = max(longest, run)
        }
        return Double(longest) * 0.02
    }

    /// Lost packets as a share of those expected, %; 100 when nothing was expected.
    static func percent(lost: Int, received: Int) -> Double {
        received + lost > 0 ? 100 * Double(lost) / Double(received + lost) : 100
    }

    /// Packets received and lost over every player's streams so far, from their last stats lines.
    static func packetCounts(_ directory: String, players: [String]) -> (received: Int, lost: Int) {
        var received = 0
        var lost = 0
        for name in players {
            guard let text = try? String(contentsOfFile: directory + "/\(name).jsonl", encoding: .utf8),
                let line = text.split(separator: "\n").last,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let participants = object["participants"] as? [[String: Any]]
            else { continue }
            for participant in participants {
                received += participant["packetsReceived"] as? Int ?? 0
                lost += participant["packetsLost"] as? Int ?? 0
            }
        }
        return (received, lost)
    }
}
