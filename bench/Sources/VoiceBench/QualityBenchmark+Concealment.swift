import Foundation
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceSimulation

extension QualityBenchmark {
    /// Holes nothing repairs: the receiver as shipped, with Opus's own concealment, against the
    /// same receiver continuing voiced speech a pitch period at a time from a hole's second frame
    /// (`JitterBufferConfiguration.Concealment.pitchContinuation`); scored on each fixture under
    /// random loss and under bursts counted in packets and in time.
    func measureConcealment(
        into report: inout BenchmarkReport, scorer: SpeechScorer, directory: String,
        fixtures directoryOfFixtures: String
    ) throws {
        let conditions = [
            Condition(loss: 0.10, burst: 1, jitter: 0),
            Condition(loss: 0.10, burst: 3, jitter: 0),
            Condition(loss: 0.10, burst: 1, jitter: 0, burstMilliseconds: 60),
            Condition(loss: 0.20, burst: 3, jitter: 0),
        ]
        let variants = JitterBufferConfiguration.Concealment.allCases
        var scores = VariantScores()
        for fixture in fixtures {
            let path = directoryOfFixtures + "/" + fixture
            let speech = try WAVFileInput.recording(path: path)
            let stem = (fixture as NSString).deletingPathExtension
            var files: [(name: String, file: String)] = []
            for condition in conditions {
                for variant in variants {
                    var buffer = JitterBufferConfiguration()
                    buffer.concealment = variant
                    let configuration = CallSimulation.Configuration(
                        conditions: condition.network, seed: seed, bitrate: bitrate, jitterBuffer: buffer)
                    let result = try CallSimulation.run(input: speech, configuration: configuration)
                    let name = "\(condition.name), \(variant.rawValue)"
                    let file = directory + "/\(stem)-" + name.filter { $0.isLetter || $0.isNumber } + ".wav"
                    try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: result.heard).write(toFile: file)
                    files.append((name, file))
                    print("  \(stem), \(name): concealed \(result.receive.concealedSamples / 48) ms")
                }
            }
            scores.record(try scorer.score(reference: path, degraded: files.map(\.file)), files: files)
        }
        print(
            "holes nothing repairs: Opus's concealment (as shipped) against continuing the pitch period "
                + "(JitterBufferConfiguration.Concealment.pitchContinuation)")
        for condition in conditions {
            let on = "\(condition.name), \(JitterBufferConfiguration.Concealment.pitchContinuation.rawValue)"
            let off = "\(condition.name), \(JitterBufferConfiguration.Concealment.codec.rawValue)"
            report.add(
                "pesq \(condition.name), pitch continuation against codec", scores.meanPESQ(on), unit: "PESQ-WB",
                baseline: scores.meanPESQ(off))
            report.add(
                "delay \(condition.name), pitch continuation against codec", scores.meanDelay(on), unit: "ms",
                baseline: scores.meanDelay(off))
        }
    }
}
