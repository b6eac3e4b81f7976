import ArgumentParser
import Foundation
import NIOPosix
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// `bench/run relay`: forwarding throughput per relay core, forwarding delay and memory per
/// participant at several participant counts, against a bare NIO UDP echo server measured in
/// the same run under the same load generator.
///
/// The relay (and the echo server) run in a child process (`relay-serve`), one fresh process
/// per level so its resident memory is its own; this process is the load generator. CPU time and
/// RSS are read from the child's /proc entries around the measurement window.
struct RelayBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Relay forwarding rate per core, p50/p99 delay and memory per participant vs a UDP echo baseline.",
        discussion: """
            Each simulated participant sends 50 envelopes/s of 120 bytes in a match of 5-8 members who
            all talk in channel 1, so the relay forwards (size - 1) copies of each. Windows are short
            (default 1 s warm-up + 3 s measured per level) to keep the whole run near 2-3 minutes on
            two cores. The load generator shares the machine with the process under test, so at high
            counts it, not the relay, may be the limit: compare offered and forwarded rates.
            """)

    @Option(help: "Comma-separated participant counts.") var participants: String = "100,500,1000,2000,5000"
    @Option(help: "Seconds of warm-up per level.") var warmup: Double = 1
    @Option(help: "Seconds measured per level.") var seconds: Double = 3
    @Option(help: "Participants during the memory soak.") var soakParticipants: Int = 1000
    @Option(help: "Seconds of the memory soak (0 skips it).") var soakSeconds: Int = 15
    @Option(help: "Where to write results.jsonl and relay.png.") var reportDirectory: String = "bench/reports/relay"

    func run() async throws {
        let counts = participants.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--participants needs positive counts, e.g. 100,500,1000")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var report = BenchmarkReport(bench: "relay")
        var rows: [String] = []
        print(
            "participants  server  offered/s  forwarded/s  expected/s  cpu%   per-core/s  p50(us)  p99(us)  max(us)  "
                + "mem/participant")
        for count in counts {
            let relay = try await measure(count: count, echo: false, group: group)
            let echo = try await measure(count: count, echo: true, group: group)
            for level in [relay, echo] {
                print(level.line)
                rows.append(level.json)
            }
            report.add(
                "relay \(count) forwarded packets/s", relay.forwardedPerSecond, unit: "packets/s",
                baseline: echo.forwardedPerSecond)
            report.add(
                "relay \(count) forwarded packets/s per core", relay.perCore, unit: "packets/s/core",
                baseline: echo.perCore, target: .atLeast(250_000))
            report.add(
                "relay \(count) p50 delay", relay.result.p50Microseconds, unit: "us",
                baseline: echo.result.p50Microseconds)
            report.add(
                "relay \(count) p99 delay", relay.result.p99Microseconds, unit: "us",
                baseline: echo.result.p99Microseconds, target: .below(2_000))
            report.add(
                "relay \(count) delivered", 100 * relay.deliveredFraction, unit: "% of expected",
                baseline: 100 * echo.deliveredFraction)
            report.add(
                "relay \(count) memory per participant", relay.memoryPerParticipant, unit: "bytes",
                baseline: echo.memoryPerParticipant)
        }
        if soakSeconds > 0 {
            let growth = try await soak(group: group)
            report.add(
                "relay soak \(soakParticipants) RSS growth", growth.bytes, unit: "bytes over \(soakSeconds - 3) s",
                target: .below(4 * 1024 * 1024))
            rows.append(growth.json)
        }
        try await group.shutdownGracefully()
        try plotResults(script: "plot_relay.py", rows: rows, directory: reportDirectory)
        if !report.finish() { throw ExitCode.failure }
    }

    private struct Level {
        var count: Int
        var echo: Bool
        var result: LoadResult
        var cpuFraction: Double
        var memoryPerParticipant: Double

        var forwardedPerSecond: Double { Double(result.received) / result.seconds }
        var offeredPerSecond: Double { Double(result.sent) / result.seconds }
        /// What the server would send if nothing were lost: one echo per packet, or (size - 1) copies.
        var expectedPerSecond: Double {
            echo
                ? offeredPerSecond
                : RelayLoadGenerator.expectedForwardedPerSecond(participants: count) * offeredPerSecond
                    / (50 * Double(count))
        }
        var deliveredFraction: Double { expectedPerSecond > 0 ? forwardedPerSecond / expectedPerSecond : 0 }
        var perCore: Double { cpuFraction > 0 ? forwardedPerSecond / cpuFraction : 0 }

        var line: String {
            func f(_ value: Double, _ width: Int) -> String {
                let text = String(format: "%.0f", value)
                return String(repeating: " ", count: max(0, width - text.count)) + text
            }
            return f(Double(count), 12) + "  " + (echo ? "  echo" : " relay") + f(offeredPerSecond, 11)
                + f(forwardedPerSecond, 13) + f(expectedPerSecond, 12) + f(100 * cpuFraction, 6) + f(perCore, 13)
                + f(result.p50Microseconds, 9) + f(result.p99Microseconds, 9) + f(result.maxMicroseconds, 9)
                + f(memoryPerParticipant, 12) + " B"
        }

        var json: String {
            "{\"participants\": \(count), \"server\": \"\(echo ? "echo" : "relay")\", "
                + "\"offered_per_s\": \(offeredPerSecond), \"forwarded_per_s\": \(forwardedPerSecond), "
                + "\"expected_per_s\": \(expectedPerSecond), \"cpu_fraction\": \(cpuFraction), "
                + "\"per_core_per_s\": \(perCore), \"p50_us\": \(result.p50Microseconds), "
                + "\"p99_us\": \(result.p99Microseconds), \"max_us\": \(result.maxMicroseconds), "
                + "\"memory_per_participant_bytes\": \(memoryPerParticipant)}"
        }
    }

    private func startServer(echo: Bool, secret: RelaySecret) throws -> (ChildProcess, Int) {
        let hex = secret.bytes.map { String(format: "%02x", $0) }.joined()
        let child = try ChildProcess(
            label: echo ? "echo server" : "relay server",
            arguments: ["relay-serve", "--mode", echo ? "echo" : "relay", "--secret", hex])
        guard let line = child.waitForLine(prefixes: ["port "], timeout: 30), let port = Int(line.dropFirst(5)) else {
            child.stop()
            throw LoadError.childFailed("relay-serve printed no port")
        }
        return (child, port)
    }

    private func measure(count: Int, echo: Bool, group: MultiThreadedEventLoopGroup) async throws -> Level {
        let secret = RelaySecret.random()
        let (child, port) = try startServer(echo: echo, secret: secret)
        defer { child.stop() }
        try await Task.sleep(for: .milliseconds(200))
        let idleRSS = child.residentBytes
        var cpuStart = 0.0
        var cpuEnd = 0.0
        var wallStart = Date()
        var wallEnd = Date()
        var loadedRSS = 0.0
        let generator = RelayLoadGenerator(participants: count, port: port, secret: echo ? nil : secret, group: group)
        let result = try await generator.run(
            warmup: warmup, seconds: seconds, echo: echo,
            atMeasureStart: {
                cpuStart = child.cpuSeconds
                wallStart = Date()
            },
            atMeasureEnd: {
                cpuEnd = child.cpuSeconds
                wallEnd = Date()
                loadedRSS = child.residentBytes
            })
        let cpuFraction = (cpuEnd - cpuStart) / max(0.001, wallEnd.timeIntervalSince(wallStart))
        return Level(
            count: count, echo: echo, result: result, cpuFraction: cpuFraction,
            memoryPerParticipant: max(0, loadedRSS - idleRSS) / Double(count))
    }

    private struct SoakGrowth {
        var participants: Int
        var bytes: Double
        var samples: [Double]
        var json: String {
            "{\"soak_participants\": \(participants), \"rss_samples_bytes\": [\(samples.map { String($0) }.joined(separator: ", "))]}"
        }
    }

    /// Runs one level for `soakSeconds`, sampling RSS each second; growth is measured from the third second.
    private func soak(group: MultiThreadedEventLoopGroup) async throws -> SoakGrowth {
        let secret = RelaySecret.random()
        let (child, port) = try startServer(echo: false, secret: secret)
        defer { child.stop() }
        var samples: [Double] = []
        let generator = RelayLoadGenerator(participants: soakParticipants, port: port, secret: secret, group: group)
        _ = try await generator.run(
            warmup: 0, seconds: Double(soakSeconds), echo: false, atMeasureStart: {}, atMeasureEnd: {},
            during: { _ in samples.append(child.residentBytes) })
        print("soak RSS (MiB/s): " + samples.map { String(format: "%.1f", $0 / 1_048_576) }.joined(separator: " "))
        let settled = samples.count > 3 ? samples[2] : samples.first ?? 0
        var growth = SoakGrowth(participants: soakParticipants, bytes: (samples.last ?? 0) - settled, samples: samples)
        growth.bytes = max(0, growth.bytes)
        return growth
    }
}
