import ArgumentParser
import Foundation
import VoiceCodec
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceSimulation

#if canImport(Glibc)
    import Glibc
#endif

/// `bench/run pipeline`: what a whole simulated call costs, sender and listener engines plus the
/// simulated network in one loop, and whether its steady state allocates.
struct PipelineBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Cost of a simulated call and of the real engine in a match (× real time), and their allocations.",
        discussion: """
            Runs a one-way call over looped fixture speech with 10 % loss and 20 ms jitter, with the \
            engine's listener and, as the baseline, the speexdsp jitter buffer + Opus PLC listener. \
            Steady-state allocations per frame are the difference between a long and a short call \
            (setup allocates the same in both), divided by the difference in frames. Then the real \
            thing: a listener's VoiceEngine hearing eight speakers' VoiceEngines in a match at the \
            shipped settings, sealing on, over an in-process transport in virtual time; the \
            listener's CPU time on its thread (its ticks and the datagrams handed to it; its \
            courier sends on a thread of its own, as with the engine's thread) against libopus \
            alone doing its codec work (an encode of silence, eight speakers' packets through eight \
            decoders) in the same loop, and its allocations per frame after a warm-up.
            """
    )

    @Option(help: "Seconds of speech in the long call (the short one is half of it).")
    var seconds = 30.0

    @Option(help: "Repetitions of the timed calls; the median is reported.")
    var repetitions = 5

    func run() throws {
        let fixtures = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? "Fixtures"
        let once = try WAVAudio(contentsOfFile: fixtures + "/speech-female.wav").samples
        let long = (0..<Int(seconds * 48_000)).map { once[$0 % once.count] }
        let short = Array(long.prefix(long.count / 2))
        var conditions = NetworkConditions()
        conditions.lossRate = 0.1
        conditions.jitterMilliseconds = 20
        func configuration(_ receiver: CallSimulation.Receiver) -> CallSimulation.Configuration {
            CallSimulation.Configuration(conditions: conditions, seed: 9, receiver: receiver)
        }

        var report = BenchmarkReport(bench: "pipeline")
        var speeds: [CallSimulation.Receiver: [Double]] = [:]
        for _ in 0..<repetitions {
            for receiver in CallSimulation.Receiver.allCases {
                let start = monotonicNanoseconds()
                let result = try CallSimulation.run(input: long, configuration: configuration(receiver))
                let wall = Double(monotonicNanoseconds() - start) / 1e9
                speeds[receiver, default: []].append(result.audioSeconds / wall)
            }
        }
        let engineSpeed = median(speeds[.engine] ?? [0])
        let baselineSpeed = median(speeds[.baseline] ?? [0])
        report.add("two-engine call speed", engineSpeed, unit: "× real time", baseline: baselineSpeed)
        // What no call with these codec settings can beat: libopus alone encoding and decoding
        // the same speech, frame by frame, with nothing else around it.
        let complexity = configuration(.engine).complexity
        let codecSpeed = median(
            try (0..<repetitions).map { _ in
                try Self.codecAloneSpeed(long, complexity: complexity, bitrate: configuration(.engine).bitrate)
            })
        report.add(
            "libopus alone, encode + decode (complexity \(complexity))", codecSpeed, unit: "× real time",
            baseline: engineSpeed)
        // A call makes the same encode and decode plus everything around them; on a shared machine
        // only the ratio to libopus in the same run says what the engine adds.
        report.add(
            "two-engine call speed over libopus alone", engineSpeed / codecSpeed, unit: "ratio", target: .atLeast(0.8))

        let counting = AllocationCounter.isActive()
        report.require(counting, "allocation counting is inactive: run through bench/run")
        for receiver in CallSimulation.Receiver.allCases {
            AllocationCounter.start(threads: [pthread_self()])
            _ = try CallSimulation.run(input: short, configuration: configuration(receiver))
            let shortAllocations = AllocationCounter.stop()
            AllocationCounter.start(threads: [pthread_self()])
            _ = try CallSimulation.run(input: long, configuration: configuration(receiver))
            let longAllocations = AllocationCounter.stop()
            let frames = Double((long.count - short.count) / 960)
            let perFrame = Double(longAllocations - shortAllocations) / frames
            report.add(
                "\(receiver.rawValue) allocations per frame, steady state", perFrame, unit: "allocs/frame",
                target: receiver == .engine ? .atMost(0) : nil)
            report.add(
                "\(receiver.rawValue) allocations, \(Int(seconds / 2)) s call", Double(shortAllocations), unit: "allocs"
            )
        }
        try measureEngineMatch(speech: long, report: &report)
        if !report.finish() { throw ExitCode.failure }
    }

    /// The real engine: a listener's `VoiceEngine` hearing eight speakers' engines in a match
    /// (sealing on), against libopus alone doing the listener's codec work in the same loop.
    private func measureEngineMatch(speech: [Float], report: inout BenchmarkReport) throws {
        let speakers = 8
        let match = EngineMatchRun(speech: speech, speakers: speakers, warmupSeconds: 3, seconds: seconds / 2)
        // libopus alone doing the listener's codec work runs in the same loop as the engines, so
        // that it meets the same caches (nine engines' codec states pass through them each frame)
        // and the same share of a shared machine; the ratio is the median of the runs'.
        let frames = match.warmupFrames..<(match.warmupFrames + match.frames)
        let runs = try (0..<repetitions).map { _ in
            try match.run(
                countingAllocations: false,
                alongside: ListenerCodecWork(
                    speech: speech, speakers: speakers, offsetFrames: EngineMatchRun.offsetFrames, frames: frames))
        }
        let listenerSpeed = median(runs.map(\.listenerSpeed))
        let codecSpeed = median(runs.compactMap(\.alongsideSpeed))
        let ratios = runs.map { ($0.alongsideSpeed ?? 0) / $0.listenerSpeed }
        print(
            "listener's CPU over libopus alone (an encode of silence, \(speakers) speakers' packets through "
                + "\(speakers) decoders), per run: " + ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        )
        report.require(
            runs.allSatisfy { $0.speakersHeard == speakers },
            "the listener heard \(runs.map(\.speakersHeard)) of \(speakers) speakers after the warm-up")
        report.add(
            "real engine: listener of \(speakers) speakers, speed", listenerSpeed, unit: "× real time",
            baseline: codecSpeed)
        report.add(
            "real engine: listener's CPU over libopus alone doing its codec work in the same loop (median)",
            median(ratios), unit: "ratio", target: .atMost(1.15))
        report.add(
            "real engine: match of \(speakers + 1) engines, speed", median(runs.map(\.matchSpeed)), unit: "× real time")
        let counted = try match.run(countingAllocations: true)
        report.add(
            "real engine: listener allocations per frame, steady state", counted.listenerAllocationsPerFrame,
            unit: "allocs/frame", target: .atMost(0))
        report.add(
            "real engine: whole match allocations per frame, steady state", counted.matchAllocationsPerFrame,
            unit: "allocs/frame")
    }

    /// Encodes `samples` in frames and decodes each packet; returns seconds of audio per second of
    /// the thread's CPU time.
    static func codecAloneSpeed(_ samples: [Float], complexity: Int, bitrate: Int) throws -> Double {
        var encoder = try OpusEncoder(
            OpusEncoder.Configuration(
                frameDuration: VoiceDefaults.frameDuration, bitrate: bitrate, complexity: complexity, inbandFEC: false,
                packetLossPercent: 0))
        var decoder = try OpusDecoder()
        let frame = VoiceDefaults.frameDuration.engineFrames
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketBytes)
        var decoded = [Float](repeating: 0, count: decoder.maximumFrameSamples)
        let start = threadCPUNanoseconds()
        try samples.withUnsafeBufferPointer { pcm in
            try packet.withUnsafeMutableBufferPointer { packet in
                try decoded.withUnsafeMutableBufferPointer { decoded in
                    for offset in stride(from: 0, through: pcm.count - frame, by: frame) {
                        let input = UnsafeBufferPointer(rebasing: pcm[offset..<(offset + frame)])
                        let length = try encoder.encode(input, into: packet)
                        _ = try decoder.decode(UnsafeBufferPointer(rebasing: packet[..<length]), into: decoded)
                    }
                }
            }
        }
        let seconds = Double(threadCPUNanoseconds() - start) / 1e9
        return Double(samples.count / frame * frame) / 48_000 / seconds
    }
}
