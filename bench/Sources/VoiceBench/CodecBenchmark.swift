import ArgumentParser
import CDirectOpus
import Foundation
import MallocInterposerSwift
import VoiceCodec
import VoiceCore
import VoiceDevices

/// `bench/run codec`: µs per frame of VoiceCodec's Opus encoder and decoder against the same
/// libopus calls made directly from C, in the same run, on fixture speech.
struct CodecBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codec",
        abstract: "Opus encode/decode/PLC through VoiceCodec against direct libopus calls; allocations per frame."
    )

    @Option(help: "Repetitions of each case for each side, alternating Swift and C (odd, for a clean median).")
    var repetitions = 9

    @Option(help: "The fixture (48 kHz mono WAV in $VOICECHAT_FIXTURES) to encode.")
    var fixture = "speech-male.wav"

    @Option(help: "The most Swift may add over direct C on the total of the medians, in percent.")
    var maximumOverheadPercent = 5.0

    func validate() throws {
        guard repetitions >= 3 else { throw ValidationError("--repetitions must be at least 3, not \(repetitions)") }
    }

    func run() throws {
        let directory = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? "Fixtures"
        let audio = try WAVAudio(contentsOfFile: directory + "/" + fixture)
        guard audio.format == .engineMono else {
            throw ValidationError("\(fixture) is \(audio.format); the codec benchmark needs 48 kHz mono")
        }
        var report = BenchmarkReport(bench: "codec")
        var swiftTotal = 0.0
        var directTotal = 0.0
        for duration in [FrameDuration.ms10, .ms20] {
            let bench = try CodecCaseRunner(samples: audio.samples, duration: duration)
            defer { bench.deallocate() }
            var cases: [(String, CodecCaseRunner.Case)] = []
            for complexity in [5, 10] {
                for fec in [false, true] {
                    cases.append(
                        ("encode c\(complexity) fec-\(fec ? "on" : "off")", .encode(complexity: complexity, fec: fec)))
                }
            }
            cases.append(("decode", .decode))
            cases.append(("plc", .conceal))
            for (name, benchCase) in cases {
                var swiftTimes: [Double] = []
                var directTimes: [Double] = []
                for repetition in 0..<repetitions {
                    // Alternate which side goes first so drift in machine load hits both alike.
                    if repetition % 2 == 0 {
                        swiftTimes.append(try bench.swiftMicrosecondsPerFrame(benchCase))
                        directTimes.append(try bench.directMicrosecondsPerFrame(benchCase))
                    } else {
                        directTimes.append(try bench.directMicrosecondsPerFrame(benchCase))
                        swiftTimes.append(try bench.swiftMicrosecondsPerFrame(benchCase))
                    }
                }
                let swiftMedian = median(swiftTimes)
                let directMedian = median(directTimes)
                swiftTotal += swiftMedian
                directTotal += directMedian
                let label = "\(name) \(duration)"
                let frameMicroseconds = duration.milliseconds * 1_000
                report.add(label, swiftMedian, unit: "µs/frame", baseline: directMedian)
                report.add(
                    label + " speed", frameMicroseconds / swiftMedian, unit: "× real time",
                    baseline: frameMicroseconds / directMedian)
            }
        }
        report.add("total of medians", swiftTotal, unit: "µs", baseline: directTotal)
        let overhead = (swiftTotal / directTotal - 1) * 100
        report.add("swift overhead", overhead, unit: "%", target: .atMost(maximumOverheadPercent))

        report.require(
            Self.interposerCounts(),
            "the malloc interposer counted nothing: run through bench/run, which preloads it")
        let allocations = try steadyStateAllocationsPerFrame(audio.samples)
        report.add(
            "allocations per encode+decode", allocations, unit: "mallocs/frame", baseline: 0, target: .atMost(0))

        if !report.finish() { throw ExitCode.failure }
    }

    /// Whether the interposer sees an allocation made on purpose; without it a count of zero
    /// would prove nothing.
    private static func interposerCounts() -> Bool {
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        let probe = UnsafeMutablePointer<UInt8>.allocate(capacity: 4_096)
        probe.deallocate()
        MallocInterposerSwift.unhook()
        return MallocInterposerSwift.getStatistics().mallocCount > 0
    }

    /// Mallocs per encoded and decoded 20 ms frame once encoder and decoder are warm. The
    /// interposer counts process-wide; this command runs no other threads while it counts.
    private func steadyStateAllocationsPerFrame(_ samples: [Float]) throws -> Double {
        var encoder = try OpusEncoder()
        var decoder = try OpusDecoder()
        let frame = FrameDuration.ms20.engineFrames
        let frames = samples.count / frame
        let pcm = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * frame)
        _ = pcm.initialize(from: samples.prefix(frames * frame))
        let packet = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: OpusEncoder.maximumPacketBytes)
        let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: decoder.maximumFrameSamples)
        defer {
            pcm.deallocate()
            packet.deallocate()
            output.deallocate()
        }
        func cycle(_ index: Int) throws(CodecError) {
            let input = UnsafeBufferPointer(rebasing: pcm[index * frame..<(index + 1) * frame])
            let length = try encoder.encode(input, into: packet)
            _ = try decoder.decode(UnsafeBufferPointer(rebasing: packet[0..<length]), into: output)
        }
        for index in 0..<50 { try cycle(index) }
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        var failure: CodecError?
        for index in 50..<frames {
            do { try cycle(index) } catch {
                failure = error
                break
            }
        }
        MallocInterposerSwift.unhook()
        if let failure { throw failure }
        return Double(MallocInterposerSwift.getStatistics().mallocCount) / Double(frames - 50)
    }
}
