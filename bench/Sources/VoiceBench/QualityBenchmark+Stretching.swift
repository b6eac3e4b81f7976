import Foundation
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceSimulation

extension QualityBenchmark {
    /// A network whose delay changes while someone talks: the receiver as shipped (whole frames
    /// skipped or repeated at quiet frames) against the same receiver with
    /// `JitterBufferConfiguration.timeStretching`, which sheds a delay far over its target by
    /// squeezing speech instead; scored on each fixture, with the delay each adds and the largest
    /// share of a call's playout squeezed.
    func measureStretching(
        into report: inout BenchmarkReport, scorer: SpeechScorer, directory: String,
        fixtures directoryOfFixtures: String
    ) throws {
        let conditions: [(name: String, network: NetworkConditions)] = [
            ("clean", NetworkConditions()),
            ("jitter 40 ms", NetworkConditions(jitterMilliseconds: 40)),
            ("delay drifting by 60 ms", Self.drifting),
            ("delay stepping by 40 ms", Self.stepping),
        ]
        let variants: [(name: String, stretching: Bool)] = [("squeezing", true), ("as shipped", false)]
        var scores = VariantScores()
        var worstRate = 0.0
        for fixture in fixtures {
            let path = directoryOfFixtures + "/" + fixture
            let speech = try WAVFileInput.recording(path: path)
            let stem = (fixture as NSString).deletingPathExtension
            var files: [(name: String, file: String)] = []
            for condition in conditions {
                for variant in variants {
                    var buffer = JitterBufferConfiguration()
                    buffer.timeStretching = variant.stretching
                    let configuration = CallSimulation.Configuration(
                        conditions: condition.network, seed: seed, bitrate: bitrate, jitterBuffer: buffer)
                    let result = try CallSimulation.run(input: speech, configuration: configuration)
                    let name = "\(condition.name), \(variant.name)"
                    let file = directory + "/\(stem)-" + name.filter { $0.isLetter || $0.isNumber } + ".wav"
                    try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: result.heard).write(toFile: file)
                    files.append((name, file))
                    let receive = result.receive
                    print(
                        "  \(stem), \(name): squeezed away \(receive.framesSqueezedAway) frames, skipped "
                            + "\(receive.framesDropped), repeated \(receive.framesInserted), concealed "
                            + "\(receive.concealedSamples / 48) ms, late \(receive.packetsLate)")
                    if variant.stretching {
                        worstRate = max(
                            worstRate, Double(receive.samplesSqueezed) / Double(max(receive.totalSamplesPlayed, 1)))
                    }
                }
            }
            scores.record(try scorer.score(reference: path, degraded: files.map(\.file)), files: files)
        }
        print(
            "a delay that changes: the receiver as shipped against squeezing speech inside talk spurts "
                + "(JitterBufferConfiguration.timeStretching, off by default)")
        for condition in conditions {
            let on = "\(condition.name), squeezing"
            let off = "\(condition.name), as shipped"
            report.add(
                "pesq \(condition.name), squeezing against as shipped", scores.meanPESQ(on), unit: "PESQ-WB",
                baseline: scores.meanPESQ(off))
            report.add(
                "delay \(condition.name), squeezing against as shipped", scores.meanDelay(on), unit: "ms",
                baseline: scores.meanDelay(off))
        }
        report.add(
            "speech squeezed, largest share of a call", worstRate * 100, unit: "%",
            target: .atMost(JitterBufferConfiguration.maximumStretchRate * 100))
    }

    /// The path's delay drifts up by 60 ms and back every 8 s.
    static let drifting = NetworkConditions(delayWanderMilliseconds: 60, delayWanderPeriodSeconds: 8)
    /// The path's delay steps up by 40 ms for 3 s, then back for 3 s, and so on.
    static let stepping = NetworkConditions(delayStepMilliseconds: 40, delayStepIntervalSeconds: 3)
}
