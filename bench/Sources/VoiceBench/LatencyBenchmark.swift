import ArgumentParser
import Foundation
import VoiceIO
import VoiceSimulation
import VoiceTestHarness

/// `bench/run latency`: mouth-to-ear latency of a real call between two processes on loopback,
/// with real-time-paced devices, against the bare device round trip measured in the same run.
struct LatencyBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract:
            "Mouth-to-ear latency (p50/p95) of a two-process call over JACK devices vs the bare device round trip.",
        discussion: """
            Starts a JACK server with the dummy backend for each mode (period = the mode's device \
            period) and two peer processes, each a VoiceEngine + VoiceChatService on a UDPNetwork at \
            127.0.0.1 with ALSA jack PCMs as microphone and speaker; this process carries their \
            signalling over their standard input and output. A click train enters A's microphone \
            port; B's speaker port and the clicks themselves are recorded on the same JACK cycle, and \
            each click is found by cross-correlation. The engine's delay is the total minus the \
            network's share (half the round-trip time the engines measured). The baseline is the \
            same chain with a process that copies capture to playback directly, no engine. Modes: \
            10 ms frames (480-frame periods) and the low-latency mode (5 ms frames, 240-frame \
            periods, smallest safe jitter-buffer target). Each run also records the host's CPU \
            steal and the machine's stalls while it ran: on a shared virtual machine they say how far \
            its figures speak for the engine. Writes results.jsonl and latency.png.
            """)

    @Option(help: "Seconds of clicks measured per run (after the warm-up).") var seconds = 15.0
    @Option(help: "Seconds of clicks played first and not counted (the call settles).") var warmup = 3.0
    @Option(help: "Seconds between clicks.") var interval = 0.5
    @Option(help: "ALSA buffer of every device in the chain, in periods.") var bufferPeriods = 2
    @Option(help: "Jitter-buffer margin of the low-latency mode, in frames over the delay percentile.")
    var lowLatencyMarginFrames = 1.0
    @Option(help: "Modes to run: standard, low-latency (comma-separated).") var modes = "standard,low-latency"
    @Option(help: "Times a run is measured again when the machine stalled its recording.") var stallRetries = 3
    @Option(help: "Where to write results.jsonl and latency.png.") var reportDirectory: String?

    func validate() throws {
        guard seconds >= 2, warmup >= 0, interval >= 0.2, (2...16).contains(bufferPeriods) else {
            throw ValidationError("--seconds must be at least 2, --interval at least 0.2, --buffer-periods 2…16")
        }
        for mode in modes.split(separator: ",") where !["standard", "low-latency"].contains(String(mode)) {
            throw ValidationError("unknown mode \(mode): use standard and/or low-latency")
        }
    }

    func run() throws {
        let directory = reportDirectory ?? projectRoot + "/bench/reports/latency"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("voicechat-latency-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        let selected: [LatencyMode] = modes.split(separator: ",").map {
            $0 == "standard" ? .standard : .lowLatency(marginFrames: lowLatencyMarginFrames)
        }
        let train = ClickTrain(intervalSeconds: interval)
        var report = BenchmarkReport(bench: "latency")
        var rows: [String] = []
        for (index, mode) in selected.enumerated() {
            print(
                "\(mode.name): JACK dummy server, \(mode.periodFrames)-frame periods, \(bufferPeriods)-period buffers")
            let server = try JACKServer(
                name: "vclat\(getpid())m\(index)", periodFrames: mode.periodFrames,
                logDirectory: URL(fileURLWithPath: work))
            defer { server.stop() }
            var results: [LatencyRun.Kind: LatencyRun.Result] = [:]
            for kind in [LatencyRun.Kind.baseline, .engine] {
                let run = LatencyRun(
                    kind: kind, mode: mode, server: server, train: train, bufferPeriods: bufferPeriods,
                    seconds: seconds, warmupSeconds: warmup, tag: "\(index)\(kind == .engine ? "e" : "b")",
                    directory: work)
                let result = try measure(run, kind: kind)
                results[kind] = result
                for arrival in result.arrivals {
                    rows.append(
                        "{\"mode\": \"\(mode.name)\", \"kind\": \"\(kind.rawValue)\", \"sent_s\": \(arrival.sentSeconds), "
                            + "\"latency_ms\": \(arrival.isFound ? String(arrival.latencyMilliseconds) : "null"), "
                            + "\"correlation\": \(arrival.correlation)}")
                }
                let found = result.arrivals.filter(\.isFound)
                print(
                    "  \(kind.rawValue): \(found.count) of \(result.arrivals.count) clicks found, p50 "
                        + String(format: "%.1f", percentile(found.map(\.latencyMilliseconds), 0.5)) + " ms; far end "
                        + "\(result.farStatistics), near end \(result.nearStatistics); \(result.machine)")
            }
            addFigures(mode: mode, results: results, to: &report)
        }
        try plotResults(script: "plot_latency.py", rows: rows, directory: directory)
        if !report.finish() { throw ExitCode.failure }
    }

    /// Measures `run`, again (up to `stallRetries` times) when the machine stalled the recorder,
    /// saying so: a stalled run has no complete recording to find the clicks in.
    private func measure(_ run: LatencyRun, kind: LatencyRun.Kind) throws -> LatencyRun.Result {
        var attempt = 0
        while true {
            do {
                return try run.measure()
            } catch let failure as LatencyRun.Failure where failure.isStall && attempt < stallRetries {
                attempt += 1
                print(
                    "  \(kind.rawValue): the machine stalled the recording; measuring again (\(attempt) of \(stallRetries))"
                )
            }
        }
    }

    private func addFigures(
        mode: LatencyMode, results: [LatencyRun.Kind: LatencyRun.Result], to report: inout BenchmarkReport
    ) {
        let engine = results[.engine]?.arrivals ?? []
        let baseline = results[.baseline]?.arrivals ?? []
        let total = engine.filter(\.isFound).map(\.latencyMilliseconds)
        let device = baseline.filter(\.isFound).map(\.latencyMilliseconds)
        // On loopback the network's share is one way of the round trip the engines measured.
        let rtts = [results[.engine]?.nearStatistics["rtt_ms"], results[.engine]?.farStatistics["rtt_ms"]]
            .compactMap { $0 }.filter { $0 >= 0 }
        let network = rtts.isEmpty ? 0 : rtts.reduce(0, +) / Double(rtts.count) / 2
        let name = mode.name
        let totalP50 = percentile(total, 0.5)
        let totalP95 = percentile(total, 0.95)
        let deviceP50 = percentile(device, 0.5)
        let deviceP95 = percentile(device, 0.95)
        report.add("\(name) mouth-to-ear total p50", totalP50, unit: "ms", baseline: deviceP50)
        report.add("\(name) mouth-to-ear total p95", totalP95, unit: "ms", baseline: deviceP95)
        report.add("\(name) network share (RTT/2)", network, unit: "ms")
        report.add(
            "\(name) engine delay p50 (total - network)", totalP50 - network, unit: "ms", baseline: deviceP50,
            target: .atMost(mode.targetP50))
        report.add(
            "\(name) engine delay p95 (total - network)", totalP95 - network, unit: "ms", baseline: deviceP95,
            target: mode.targetP95.map { BenchmarkTarget.atMost($0) })
        report.add("\(name) engine share over devices p50", totalP50 - network - deviceP50, unit: "ms")
        report.add("\(name) device round trip p50 (no engine)", deviceP50, unit: "ms")
        report.add("\(name) engine delay max", (total.max() ?? 0) - network, unit: "ms", baseline: device.max())
        report.add(
            "\(name) clicks lost", Double(engine.count - total.count), unit: "clicks",
            baseline: Double(baseline.count - device.count))
        if let target = results[.engine]?.farStatistics["target_delay_ms"] {
            report.add("\(name) jitter-buffer target at the end", target, unit: "ms")
        }
        // How far ahead of the far end's speaker its engine mixed at the end: 2 ms on a quiet
        // machine, up to a period less a millisecond after the speaker ran dry.
        if let lead = results[.engine]?.farStatistics["playout_lead_ms"], lead >= 0 {
            report.add("\(name) playout lead at the end", lead, unit: "ms")
        }
        if let call = results[.engine]?.machine, let copy = results[.baseline]?.machine {
            report.add(
                "\(name) host CPU steal during the call", call.stealShare * 100, unit: "%",
                baseline: copy.stealShare * 100)
            report.add(
                "\(name) machine stalls over \(MachineStallWatch.stallThresholdNanoseconds / 1_000_000) ms during the call",
                Double(call.stalls), unit: "stalls",
                baseline: Double(copy.stalls))
        }
        report.require(
            total.count >= engine.count * 9 / 10 && !engine.isEmpty,
            "\(name): only \(total.count) of \(engine.count) clicks came through the call")
        report.require(
            device.count >= baseline.count * 9 / 10 && !baseline.isEmpty,
            "\(name): only \(device.count) of \(baseline.count) clicks came through the bare device copy")
    }
}
