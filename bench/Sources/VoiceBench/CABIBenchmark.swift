import ArgumentParser
import Foundation
import VoiceCore

/// `bench/run c-abi`: the game-owned-audio loop through the C ABI against the same work through
/// the Swift API's `tick`, in the same run.
struct CABIBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "c-abi",
        abstract:
            "vc_engine_process at a game's block sizes: allocations, CPU against the Swift API's tick, longest call.",
        discussion: """
            A listener in this process joins a match through a `voicechat relay` and hears a \
            `voicechat join` speaker (both processes of their own) say a fixture. The listener's \
            audio is the game's own: a thread of this process calls vc_engine_process at the real \
            clock's pace with blocks of 128, 256, 441 (at 44.1 kHz), 480 and 1024 frames, its \
            microphone silent, through the C ABI as a game would (created with vc_engine_create, \
            joined with vc_match_join_relay). The baseline is the same listener through the Swift \
            API: a VoiceEngine without devices, ticked by a thread of this process every 20 ms \
            (startDelivering and tick(at:captured:output:)), joined as voicechat join joins. Both \
            run the shipped settings with the echo canceller on, as with a game's real microphone \
            and speaker (the C ABI's default for game audio; the Swift engine without devices is \
            told so). Reported per block size: allocations per vc_engine_process call on the \
            calling thread, this process's CPU per second of audio against the baseline's, and \
            the longest call. Every case runs --repetitions times in turn and each figure is the \
            median. The CPU figures are net of a thread that only wakes as often and does \
            nothing (the game's audio callback, there with or without the engine), measured in the \
            same run.
            """)

    @Option(help: "Seconds measured per block size.")
    var seconds = 8.0

    @Option(help: "Rounds of every case; each figure is the median of its rounds.")
    var repetitions = 3

    @Option(help: "Block sizes (frames), each at 48 kHz unless written RATE:FRAMES.")
    var blocks = "128,256,44100:441,480,1024"

    func run() throws {
        var report = BenchmarkReport(bench: "c-abi")
        report.require(AllocationCounter.isActive(), "allocation counting is inactive: run through bench/run")
        let cases = try blocks.split(separator: ",").map { item -> (rate: Int, frames: Int) in
            let parts = item.split(separator: ":").compactMap { Int($0) }
            guard parts.count == 1 || parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
                throw ValidationError("--blocks: \"\(item)\" is not FRAMES or RATE:FRAMES")
            }
            return parts.count == 2 ? (parts[0], parts[1]) : (48_000, parts[0])
        }
        let run = try CABIRun(seconds: seconds)
        defer { run.stop() }
        // Rounds of every case in turn, so that the machine's load falls on all of them alike;
        // each figure is the median of its rounds.
        var baselines: [Double] = []
        var measurements: [[CABIRun.Measurement]] = Array(repeating: [], count: cases.count)
        for round in 1...repetitions {
            var baseline = try run.measureSwiftTick()
            let frameLoop = try run.measureEmptyLoop(period: VoiceDefaults.frameDuration.nanoseconds)
            print(
                "round \(round), the Swift API's tick every 20 ms: \(format(baseline.cpuPerSecond * 1_000)) ms of CPU per "
                    + "second of audio (\(format(frameLoop * 1_000)) of them an empty loop as often), heard "
                    + (baseline.heard ? "the speaker" : "NOTHING"))
            report.require(baseline.heard, "the Swift API's listener heard nothing: the baseline did no work")
            baseline.cpuPerSecond -= frameLoop
            baselines.append(baseline.cpuPerSecond)
            for (index, (rate, frames)) in cases.enumerated() {
                var measured = try run.measureProcessLoop(rate: rate, blockFrames: frames)
                let blockLoop = try run.measureEmptyLoop(
                    period: MediaTime.duration(ofFrames: Int64(frames), rate: rate))
                print(
                    "round \(round), \(Self.name(rate, frames)): \(measured.calls) calls, "
                        + "\(format(measured.cpuPerSecond * 1_000)) ms of CPU per second of audio "
                        + "(\(format(blockLoop * 1_000)) of them an empty loop as often), heard "
                        + (measured.heard ? "the speaker" : "NOTHING"))
                report.require(measured.heard, "the C ABI's listener heard nothing at \(Self.name(rate, frames))")
                measured.cpuPerSecond -= blockLoop
                measurements[index].append(measured)
            }
        }
        let baseline = Self.median(baselines)
        for (index, (rate, frames)) in cases.enumerated() {
            let name = Self.name(rate, frames)
            let rounds = measurements[index]
            report.add(
                "allocations per vc_engine_process call, \(name)",
                Double(rounds.map(\.allocations).reduce(0, +)) / Double(max(rounds.map(\.calls).reduce(0, +), 1)),
                unit: "allocs/call", target: .atMost(0))
            report.add(
                "CPU per second of audio net of the loop (median), \(name)",
                Self.median(rounds.map(\.cpuPerSecond)) * 1_000, unit: "ms/s", baseline: baseline * 1_000,
                target: .atMost(1.05 * baseline * 1_000))
            report.add(
                "longest vc_engine_process call, \(name)", rounds.map(\.longestCallMilliseconds).max() ?? 0, unit: "ms")
        }
        if !report.finish() { throw ExitCode.failure }
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }

    private static func name(_ rate: Int, _ frames: Int) -> String {
        "\(frames) frames at \(rate / 1_000).\(rate % 1_000 / 100) kHz"
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
