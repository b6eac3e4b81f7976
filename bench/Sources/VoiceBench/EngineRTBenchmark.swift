import ArgumentParser
import Foundation
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceMedia
import VoiceSimulation

/// `bench/run engine-rt`: whether the real engine thread keeps its time and allocates nothing
/// while the network, signalling and the API all lean on the engine.
struct EngineRTBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine-rt",
        abstract: "The real engine thread under load: wake-up lateness and allocations per tick, against idle.",
        discussion: """
            A listener's VoiceEngine runs its own engine thread on the real clock, with a \
            microphone and a speaker paced by device threads of their own (WAV files, so echo \
            cancellation is on as with sound devices; its microphone is not sent), in a match with \
            30 speakers' VoiceEngines, \
            which the harness ticks in real time over an in-process transport, sealing on, at the \
            shipped settings. Idle first: the speakers are in the match but silent. Then loaded: \
            every speaker talks (50 packets/s each, opened on the listener's engine thread), a \
            second thread hands the listener 1000 signalling messages/s (a speaker's keys again, \
            and reliable game data), and a third calls its API at 100 Hz (statistics, a channel's \
            volume, and a player's position, each both handed over without waiting, as the C ABI \
            does, and through the waiting Swift API, the baseline). The channel is positional (range 100 m, the speakers \
            on a 20 m circle round the listener) and the listener's speaker is stereo, so that each \
            stream's level and side are worked out and mixed, with echo cancellation on the mix \
            averaged down. Reported: the engine thread's wake-up lateness (p50, p99, max) in both \
            phases, how long calls, signalling and statistics waited for the engine thread to run \
            them and how long it spent on them (p50, p99, max), how long a per-frame call took on the \
            caller's thread (p50, p99, max; the waiting Swift API's the baseline), and its allocations per wake-up.
            """
    )

    @Option(help: "Seconds of each phase.")
    var seconds = 20.0

    @Option(help: "Remote speakers in the match.")
    var speakers = 30

    func run() throws {
        let fixtures = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? "Fixtures"
        let speech = try WAVAudio(contentsOfFile: fixtures + "/speech-female.wav").samples
        var report = BenchmarkReport(bench: "engine-rt")
        report.require(AllocationCounter.isActive(), "allocation counting is inactive: run through bench/run")
        let run = EngineRTRun(
            speech: speech, speakers: speakers, seconds: seconds, signallingPerSecond: 1_000, apiCallsPerSecond: 100)
        let result = try run.run()
        print(
            "settings: the shipped ones, but the match's channel is positional (\(EngineRTRun.proximity)) with the "
                + "speakers on a 20 m circle round the listener, and the listener's speaker is stereo")
        print(
            "engine thread \(result.realTimeScheduled ? "at real-time priority" : "WITHOUT real-time priority"); "
                + "listener heard \(result.speakersHeard) of \(speakers) speakers")
        for (name, phase) in [("idle", result.idle), ("loaded", result.loaded)] {
            print(
                "\(name), \(rounded(phase.seconds)) s: \(phase.lateness.count) wake-ups, "
                    + "\(rounded(Double(phase.packetsReceived) / phase.seconds)) packets/s received, "
                    + "\(rounded(Double(phase.signallingMessages) / phase.seconds)) signalling messages/s, "
                    + "\(rounded(Double(phase.apiCalls) / phase.seconds)) API calls/s")
        }
        report.require(
            result.speakersHeard == speakers, "the listener heard \(result.speakersHeard) of \(speakers) speakers")
        let echo = result.echoCancellation
        print(
            "listener's echo canceller: "
                + (echo.map {
                    "on, \($0.framesCancelled) frames cancelled, \($0.framesWithEcho) with the speaker audible"
                }
                    ?? "OFF"))
        report.require(
            (echo?.framesCancelled ?? 0) > 0,
            "the listener's echo canceller did not run: the benchmark is not what ships")
        // The load is what the issue asks for only if the harness kept up with the real clock.
        let packetRate = Double(result.loaded.packetsReceived) / result.loaded.seconds
        let expectedRate = 1_000 / VoiceDefaults.frameDuration.milliseconds * Double(speakers)
        report.require(
            packetRate >= 0.9 * expectedRate,
            "the listener received \(rounded(packetRate)) packets/s while loaded, not \(rounded(expectedRate)): "
                + "the harness fell behind the real clock")
        for (label, fraction) in [("p50", 0.5), ("p99", 0.99)] {
            let idle = result.idle.lateness.percentileMilliseconds(fraction) ?? .nan
            let loaded = result.loaded.lateness.percentileMilliseconds(fraction) ?? .nan
            report.add(
                "engine thread wake-up lateness \(label), loaded", loaded, unit: "ms", baseline: idle,
                target: label == "p99" ? .atMost(1.2 * idle) : nil)
        }
        report.add(
            "engine thread wake-up lateness max, loaded", result.loaded.lateness.longestMilliseconds ?? .nan,
            unit: "ms", baseline: result.idle.lateness.longestMilliseconds ?? .nan)
        // The engine thread takes no lock while it runs: what it could once have waited for is now
        // how long a caller waits for it to run the call, and what running calls costs it.
        let commandFigures: [(String, (EngineRTRun.Phase) -> DurationHistogram)] = [
            ("calls' and signalling's wait for the engine thread to run them", { $0.commandWaits }),
            ("engine thread's time running them, per turn that had any", { $0.commandRuns }),
        ]
        for (name, histogram) in commandFigures {
            for (label, fraction) in [("p50", 0.5), ("p99", 0.99), ("max", 1.0)] {
                let durations = histogram(result.loaded)
                let figure = fraction < 1 ? durations.percentileMilliseconds(fraction) : durations.longestMilliseconds
                report.add("\(name) \(label), loaded", figure ?? .nan, unit: "ms")
            }
        }
        // What a game pays on its own thread for a call it makes every frame.
        let handed = result.loaded.handedCalls.sorted()
        let waiting = result.loaded.waitingCalls.sorted()
        func percentile(_ sorted: [MediaTime], _ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1e6
        }
        report.require(!handed.isEmpty, "no per-frame call was made while loaded")
        report.add(
            "per-frame call (a volume, a position) on the caller's thread p50, loaded", percentile(handed, 0.5),
            unit: "ms", baseline: percentile(waiting, 0.5))
        report.add(
            "per-frame call (a volume, a position) on the caller's thread p99, loaded", percentile(handed, 0.99),
            unit: "ms", baseline: percentile(waiting, 0.99), target: .atMost(0.02))
        report.add(
            "per-frame call (a volume, a position) on the caller's thread max, loaded",
            Double(handed.last ?? 0) / 1e6, unit: "ms", baseline: Double(waiting.last ?? 0) / 1e6, target: .atMost(0.1))
        report.add(
            "engine thread allocations per wake-up, loaded",
            Double(result.loaded.allocations) / Double(max(result.loaded.allocationWakes, 1)), unit: "allocs/tick",
            target: .atMost(0))
        report.add(
            "engine thread allocations per wake-up, idle",
            Double(result.idle.allocations) / Double(max(result.idle.allocationWakes, 1)), unit: "allocs/tick")
        if !report.finish() { throw ExitCode.failure }
    }
}

/// A figure for a message, to one decimal.
private func rounded(_ value: Double) -> String { String(format: "%.1f", value) }
