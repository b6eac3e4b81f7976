import ArgumentParser
import Foundation
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceSimulation

/// `bench/run quality`: what a listener hears under loss and jitter, the engine's receiver
/// against the plain speexdsp jitter buffer + Opus PLC, both through the same simulated calls.
struct QualityBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quality",
        abstract: "PESQ-WB and added delay vs loss and jitter, engine against the speexdsp + PLC baseline.",
        discussion: """
            Every condition runs a one-way call in virtual time on each fixture, once with the engine's \
            receiver and once with the baseline receiver, then scores what was heard with wideband PESQ \
            after alignment. The clean engine score is compared with opusenc/opusdec at the same bitrate. \
            Writes the heard files, results.jsonl and PNG plots to --report-directory.
            """
    )

    @Option(parsing: .upToNextOption, help: "Fixture speech files (names in Fixtures/).")
    var fixtures = ["speech-male.wav", "speech-female.wav"]

    @Option(help: "Where to write the heard WAVs, results.jsonl and the plots.")
    var reportDirectory: String?

    @Option(help: "Opus bitrate of the calls and of the opusenc reference, in bit/s.")
    var bitrate = VoiceDefaults.bitrate

    @Option(help: "Seed of the simulated networks.")
    var seed: UInt64 = 7

    @Flag(help: "Run only the comparison of squeezing speech against whole-frame steps under a delay that changes.")
    var stretchingOnly = false

    struct Condition: Hashable {
        var loss: Double
        /// Mean burst in datagrams (1: independent loss).
        var burst: Double
        var jitter: Double
        /// Mean burst in time, ms (0: bursts counted in datagrams; see `NetworkConditions`).
        var burstMilliseconds: Double = 0
        /// A path delay that changes during the call.
        var delayChange = DelayChange.none

        enum DelayChange: String {
            case none
            case drifting = "delay drifting by 60 ms"
            case stepping = "delay stepping by 40 ms"
        }

        var name: String {
            if delayChange != .none { return delayChange.rawValue }
            if loss == 0, jitter == 0 { return "clean" }
            if jitter > 0 { return "jitter \(Int(jitter)) ms" }
            if burstMilliseconds > 0 { return "\(Int((loss * 100).rounded())) % bursty in time" }
            return "\(Int((loss * 100).rounded())) % \(burst > 1 ? "bursty" : "random")"
        }
        var fileTag: String {
            "loss\(Int((loss * 100).rounded()))-burst\(Int(burst))-jitter\(Int(jitter))"
                + (burstMilliseconds > 0 ? "-burst\(Int(burstMilliseconds))ms" : "")
                + (delayChange != .none ? "-\(delayChange)" : "")
        }

        /// The simulated path's conditions.
        var network: NetworkConditions {
            var conditions =
                switch delayChange {
                case .none: NetworkConditions()
                case .drifting: QualityBenchmark.drifting
                case .stepping: QualityBenchmark.stepping
                }
            conditions.lossRate = loss
            conditions.meanBurstLength = burst
            conditions.meanBurstMilliseconds = burstMilliseconds
            conditions.jitterMilliseconds = jitter
            return conditions
        }
    }

    static let conditions: [Condition] =
        [0, 0.05, 0.10, 0.20].map { Condition(loss: $0, burst: 1, jitter: 0) }
        + [0.05, 0.10, 0.20].map { Condition(loss: $0, burst: 3, jitter: 0) }
        + [Condition(loss: 0.10, burst: 1, jitter: 0, burstMilliseconds: 60)]
        + [20, 40, 80].map { Condition(loss: 0, burst: 1, jitter: $0) }
        + [Condition.DelayChange.drifting, .stepping].map { Condition(loss: 0, burst: 1, jitter: 0, delayChange: $0) }

    struct Outcome {
        var pesq: [Double] = []
        var delays: [Double] = []
        var p95BufferDelay: [Double] = []
        var lateFraction: [Double] = []
        var simulatedSeconds = 0.0
        var wallSeconds = 0.0
        var meanPESQ: Double { pesq.reduce(0, +) / Double(max(pesq.count, 1)) }
        var meanDelay: Double { delays.reduce(0, +) / Double(max(delays.count, 1)) }
        var maxP95: Double { p95BufferDelay.max() ?? 0 }
        var maxLate: Double { lateFraction.max() ?? 0 }
    }

    func run() throws {
        let scorer = try SpeechScorer()
        let fixturesDirectory = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? projectRoot + "/Fixtures"
        let directory = reportDirectory ?? projectRoot + "/bench/reports/quality"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if stretchingOnly {
            var report = BenchmarkReport(bench: "quality")
            try measureStretching(into: &report, scorer: scorer, directory: directory, fixtures: fixturesDirectory)
            if !report.finish() { throw ExitCode.failure }
            return
        }
        var outcomes: [String: Outcome] = [:]  // key: receiver + condition name
        var references: [Double] = []
        var results: [String] = []

        for fixture in fixtures {
            let path = fixturesDirectory + "/" + fixture
            let recording = try WAVFileInput.recording(path: path)
            let stem = (fixture as NSString).deletingPathExtension
            // opusenc/opusdec at the same bitrate: what the codec alone reaches.
            let encoded = directory + "/\(stem)-opusenc.opus"
            let reference = directory + "/\(stem)-opusenc.wav"
            _ = try scorer.run(
                "/usr/bin/opusenc", ["--quiet", "--bitrate", "\(bitrate / 1000)", "--framesize", "20", path, encoded])
            _ = try scorer.run("/usr/bin/opusdec", ["--quiet", "--rate", "48000", encoded, reference])

            var degraded: [String] = [reference]
            var pending:
                [(key: String, file: String, condition: Condition, receiver: CallSimulation.Receiver, trace: String?)] =
                    []
            for condition in Self.conditions {
                for receiver in CallSimulation.Receiver.allCases {
                    let configuration = CallSimulation.Configuration(
                        conditions: condition.network, seed: seed, bitrate: bitrate, receiver: receiver)
                    let start = monotonicNanoseconds()
                    let result = try CallSimulation.run(input: recording, configuration: configuration)
                    let wall = Double(monotonicNanoseconds() - start) / 1e9
                    let file = directory + "/\(stem)-\(condition.fileTag)-\(receiver.rawValue).wav"
                    try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: result.heard).write(toFile: file)
                    var trace: String?
                    if condition.jitter == 40, stem == (fixtures.first.map { ($0 as NSString).deletingPathExtension }) {
                        trace = directory + "/\(stem)-\(condition.fileTag)-\(receiver.rawValue)-delay.csv"
                        try result.bufferDelayCSV.write(toFile: trace!, atomically: true, encoding: .utf8)
                    }
                    let key = receiver.rawValue + "/" + condition.name
                    var outcome = outcomes[key] ?? Outcome()
                    outcome.p95BufferDelay.append(result.receive.p95BufferingDelayMilliseconds)
                    let stats = result.receive
                    outcome.lateFraction.append(
                        Double(stats.packetsLate) / Double(max(stats.packetsReceived + stats.packetsLost, 1)))
                    outcome.simulatedSeconds += result.audioSeconds
                    outcome.wallSeconds += wall
                    outcomes[key] = outcome
                    degraded.append(file)
                    pending.append((key, file, condition, receiver, trace))
                }
            }
            let scores = try scorer.score(reference: path, degraded: degraded)
            references.append(scores[reference]?.pesq_wb ?? 0)
            for item in pending {
                let score = scores[item.file]
                outcomes[item.key]?.pesq.append(score?.pesq_wb ?? 0)
                outcomes[item.key]?.delays.append(score?.delay_ms ?? 0)
                var line = "{\"receiver\": \"\(item.receiver.rawValue)\", \"fixture\": \"\(stem)\", "
                line += "\"loss\": \(item.condition.loss), \"burst\": \(Int(item.condition.burst)), "
                line += "\"burst_ms\": \(item.condition.burstMilliseconds), "
                line += "\"delay_change\": \"\(item.condition.delayChange)\", "
                line += "\"jitter_ms\": \(item.condition.jitter), \"pesq_wb\": \(score?.pesq_wb ?? 0)"
                if let trace = item.trace { line += ", \"delay_trace\": \"\(trace)\"" }
                results.append(line + "}")
            }
        }
        let resultsPath = directory + "/results.jsonl"
        try (results.joined(separator: "\n") + "\n").write(toFile: resultsPath, atomically: true, encoding: .utf8)
        try scorer.plot(results: resultsPath, into: directory)

        var report = BenchmarkReport(bench: "quality")
        let opusenc = references.reduce(0, +) / Double(max(references.count, 1))
        let clean = outcomes["engine/clean"]?.meanPESQ ?? 0
        printTable(outcomes)
        let baseline10 = outcomes["baseline/10 % random"] ?? Outcome()
        // The targets relative to the clean score (and, at 10 % random loss, to the baseline).
        let pesqTargets: [String: BenchmarkTarget] = [
            "10 % random": .atLeast(max(0.85 * clean, baseline10.meanPESQ + 1.0)),
            "10 % bursty": .atLeast(0.70 * clean),
            "10 % bursty in time": .atLeast(0.65 * clean),
            "jitter 40 ms": .atLeast(0.95 * clean),
        ]
        report.add(
            "pesq clean (engine vs opusenc/opusdec)", clean, unit: "PESQ-WB", baseline: opusenc,
            target: .atLeast(opusenc - 0.05))
        for condition in Self.conditions {
            let engine = outcomes["engine/" + condition.name] ?? Outcome()
            let baseline = outcomes["baseline/" + condition.name] ?? Outcome()
            report.add(
                "pesq \(condition.name)", engine.meanPESQ, unit: "PESQ-WB", baseline: baseline.meanPESQ,
                target: pesqTargets[condition.name])
            report.add("delay \(condition.name)", engine.meanDelay, unit: "ms", baseline: baseline.meanDelay)
        }
        let jitter40 = outcomes["engine/jitter 40 ms"] ?? Outcome()
        report.add(
            "p95 buffering delay, jitter 40 ms", jitter40.maxP95, unit: "ms",
            baseline: outcomes["baseline/jitter 40 ms"]?.maxP95, target: .atMost(60))
        report.add("late loss, jitter 40 ms", jitter40.maxLate * 100, unit: "%", target: .atMost(0.5))
        try measureSpeechProcessing(into: &report, scorer: scorer, directory: directory, fixtures: fixturesDirectory)
        try measureStretching(into: &report, scorer: scorer, directory: directory, fixtures: fixturesDirectory)
        let allOutcomes = outcomes.values
        let simulated = allOutcomes.reduce(0) { $0 + $1.simulatedSeconds }
        let wall = allOutcomes.reduce(0) { $0 + $1.wallSeconds }
        report.add("simulation speed (both receivers)", simulated / max(wall, 1e-9), unit: "× real time")

        print("report: \(directory) (heard WAVs, results.jsonl, pesq-vs-loss.png, buffer-delay.png)")
        if !report.finish() { throw ExitCode.failure }
    }

    /// The noisy condition: each fixture with pink noise at 10 dB SNR, and without, over a clean
    /// network, sent with noise suppression and gain control off (as shipped), denoise on, and both
    /// on; scored against the fixture without noise, with the delay each adds.
    private func measureSpeechProcessing(
        into report: inout BenchmarkReport, scorer: SpeechScorer, directory: String,
        fixtures directoryOfFixtures: String
    ) throws {
        let noise = try WAVFileInput.recording(path: directoryOfFixtures + "/noise-pink.wav")
        let variants: [(name: String, processing: SpeechProcessing)] = [
            ("off", SpeechProcessing()),
            ("denoise", SpeechProcessing(denoise: true)),
            ("denoise + agc", SpeechProcessing(denoise: true, automaticGainControl: true)),
        ]
        var scores = VariantScores()
        for fixture in fixtures {
            let path = directoryOfFixtures + "/" + fixture
            let speech = try WAVFileInput.recording(path: path)
            let stem = (fixture as NSString).deletingPathExtension
            let inputs = [("noisy 10 dB SNR", Self.adding(noise, to: speech, signalToNoiseDB: 10)), ("quiet", speech)]
            var files: [(name: String, file: String)] = []
            for (input, samples) in inputs {
                for variant in variants {
                    let configuration = CallSimulation.Configuration(
                        seed: seed, bitrate: bitrate, speechProcessing: variant.processing)
                    let result = try CallSimulation.run(input: samples, configuration: configuration)
                    let name = "\(input), \(variant.name)"
                    let file = directory + "/\(stem)-" + name.filter { $0.isLetter || $0.isNumber } + ".wav"
                    try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: result.heard).write(toFile: file)
                    files.append((name, file))
                }
            }
            scores.record(try scorer.score(reference: path, degraded: files.map(\.file)), files: files)
        }
        print(
            "speech with pink noise at 10 dB SNR, and without, clean network: speech processing against none (shipped)")
        for input in ["noisy 10 dB SNR", "quiet"] {
            for variant in variants.dropFirst() {
                let name = "\(input), \(variant.name)"
                report.add(
                    "pesq \(name)", scores.meanPESQ(name), unit: "PESQ-WB", baseline: scores.meanPESQ("\(input), off"))
                report.add(
                    "delay \(name)", scores.meanDelay(name), unit: "ms", baseline: scores.meanDelay("\(input), off"))
            }
        }
    }

    /// `speech` with `noise` (looped) added at `signalToNoiseDB` below the speech's mean power.
    static func adding(_ noise: [Float], to speech: [Float], signalToNoiseDB: Double) -> [Float] {
        func power(_ samples: [Float]) -> Double {
            samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))
        }
        let gain = Float((power(speech) / max(power(noise), 1e-20) / pow(10, signalToNoiseDB / 10)).squareRoot())
        return speech.indices.map { speech[$0] + gain * noise[$0 % noise.count] }
    }

    private func printTable(_ outcomes: [String: Outcome]) {
        print("condition                engine PESQ  baseline PESQ  engine delay ms  baseline delay ms")
        for condition in Self.conditions {
            let engine = outcomes["engine/" + condition.name] ?? Outcome()
            let baseline = outcomes["baseline/" + condition.name] ?? Outcome()
            print(
                condition.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                    + String(
                        format: " %11.3f  %13.3f  %15.1f  %17.1f", engine.meanPESQ, baseline.meanPESQ,
                        engine.meanDelay, baseline.meanDelay))
        }
    }

}
