import ArgumentParser
import Foundation
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceSimulation

/// `bench/run echo`: how much of the far end's voice, and of the game's own sound, the engine's
/// echo canceller keeps out of what the microphone sends, and what it costs the near end's voice
/// when both talk.
struct EchoBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo",
        abstract: "Echo return loss enhancement and double-talk PESQ-WB of the engine's echo canceller.",
        discussion: """
            Runs the canceller the engine runs on its capture path (CaptureEchoCanceller, at the \
            engine's defaults: 20 ms frames, the default tail) frame by frame over a simulated echo \
            path: a mildly overdriven loudspeaker, a delay, and a room's reflections dying away. \
            The speaker's queue is two frames, which the engine knows; the delay is what it does \
            not. Single talk: the far end's speech (or the game's sound, handed in as the game \
            plays it) and the microphone's noise; ERLE is the echo's power over what is sent, from \
            2 s on. Double talk: the near end starts talking 3 s in; what is sent from then is scored \
            with PESQ-WB against the near end's speech, against the same speech through the \
            canceller with no echo at all. Baseline: the same microphone without the canceller. \
            For scale, the same double talk with a perfect linear canceller: the room known exactly \
            and taken off, only the echo of the loudspeaker's distortion left, the near end untouched; \
            and with the whole echo merely 30 and 35 dB down, to show how much a score asks for.
            """
    )

    @Option(parsing: .upToNextOption, help: "Delays of the echo path to run, ms.")
    var delays: [Double] = [30, 90, 150]

    @Option(help: "The canceller's tail, ms (default: the engine's).")
    var tailMilliseconds = CaptureEchoCanceller.Configuration().tailMilliseconds

    @Option(help: "The most the residual echo suppressor takes off any frequency, dB (default: the engine's).")
    var residualSuppressionDB = CaptureEchoCanceller.Configuration().residualSuppressionDB

    @Option(help: "The longest echo delay beyond the speaker's queue looked for, ms (default: the engine's).")
    var maximumEchoDelayMilliseconds = CaptureEchoCanceller.Configuration().maximumEchoDelayMilliseconds

    @Option(help: "Where to write the sent WAVs.")
    var reportDirectory: String?

    func validate() throws {
        guard delays.allSatisfy({ (1...500).contains($0) }) else {
            throw ValidationError("--delays must each be 1…500 ms")
        }
        guard (1...1000).contains(tailMilliseconds) else {
            throw ValidationError("--tail-milliseconds must be 1…1000")
        }
        guard (0...90).contains(residualSuppressionDB) else {
            throw ValidationError("--residual-suppression-db must be 0…90")
        }
    }

    var cancellerConfiguration: CaptureEchoCanceller.Configuration {
        var configuration = CaptureEchoCanceller.Configuration()
        configuration.tailMilliseconds = tailMilliseconds
        configuration.residualSuppressionDB = residualSuppressionDB
        configuration.maximumEchoDelayMilliseconds = maximumEchoDelayMilliseconds
        return configuration
    }

    static let sampleRate = 48_000
    static let nearStartSeconds = 3.0
    static let convergedAfterSeconds = 2.0
    static let attenuatedEchoDecibels: [Double] = [30, 35]

    func run() throws {
        let scorer = try SpeechScorer()
        let fixtures = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? projectRoot + "/Fixtures"
        let directory = reportDirectory ?? projectRoot + "/bench/reports/echo"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let far = try WAVFileInput.recording(path: fixtures + "/speech-male.wav")
        let nearSpeech = try WAVFileInput.recording(path: fixtures + "/speech-female.wav")
        let length = far.count
        let noise = Self.microphoneNoise(count: length)
        let game = Self.gameSound(try WAVFileInput.recording(path: fixtures + "/noise-pink.wav"), count: length)
        let silence = [Float](repeating: 0, count: length)
        let nearStart = Int(Self.nearStartSeconds * Double(Self.sampleRate))
        var near = noise
        for index in nearStart..<length where index - nearStart < nearSpeech.count {
            near[index] += nearSpeech[index - nearStart]
        }
        let nearReference = directory + "/near.wav"
        try Self.write(Array(nearSpeech.prefix(length - nearStart)), to: nearReference)

        var report = BenchmarkReport(bench: "echo")
        let defaults = CaptureEchoCanceller.Configuration()
        print(
            "echo canceller: \(tailMilliseconds) ms tail, residual suppression at most "
                + "\(residualSuppressionDB) dB, echo delay looked for up to "
                + "\(maximumEchoDelayMilliseconds) ms, 20 ms frames, speaker queue 2 frames"
                + (cancellerConfiguration == defaults ? " (the engine's defaults)" : " (NOT the engine's defaults)"))

        // The ceiling: the near end through the canceller with nothing played and nothing echoed.
        let quiet = SimulatedEchoPath(delayMilliseconds: delays[0])
        let alone = try EchoCancellerRun(
            engineMix: silence, near: near, path: quiet, configuration: cancellerConfiguration
        ).run()
        let aloneFile = directory + "/near-alone-cancelled.wav"
        try Self.write(Array(alone.sent[nearStart...]), to: aloneFile)

        report.add(
            "loudspeaker distortion's limit on a linear canceller", quiet.linearCeilingDB(far), unit: "dB")
        var pending: [(delay: Double, cancelled: String, raw: String, perfect: String, attenuated: [String])] = []
        for delay in delays {
            let path = SimulatedEchoPath(delayMilliseconds: delay)
            let tag = "\(Int(delay))ms"
            let voice = try EchoCancellerRun(
                engineMix: far, near: noise, path: path, configuration: cancellerConfiguration
            ).run()
            let gameCase = try EchoCancellerRun(
                engineMix: silence, gameMix: game, near: noise, path: path, configuration: cancellerConfiguration
            ).run()
            try Self.write(voice.echo, to: directory + "/single-talk-\(tag)-echo.wav")
            try Self.write(voice.sent, to: directory + "/single-talk-\(tag)-cancelled.wav")
            try Self.write(gameCase.echo, to: directory + "/game-\(tag)-echo.wav")
            try Self.write(gameCase.sent, to: directory + "/game-\(tag)-cancelled.wav")
            let voiceERLE = Self.erle(voice, reference: far)
            let gameERLE = Self.erle(gameCase, reference: game)
            report.add(
                "ERLE, far voice, \(tag) echo delay", voiceERLE, unit: "dB", baseline: 0, target: .atLeast(25))
            report.add(
                "ERLE, game's sound, \(tag) echo delay", gameERLE, unit: "dB", baseline: voiceERLE,
                target: .atLeast(25))
            report.add(
                "ERLE reaches 25 dB, far voice, \(tag)", Self.convergenceSeconds(voice, reference: far) ?? 99,
                unit: "s", target: .atMost(Self.convergedAfterSeconds))
            report.add(
                "ERLE the canceller reports, far voice, \(tag)", voice.statistics?.echoReturnLossEnhancementDB ?? 0,
                unit: "dB")
            report.add(
                "echo delay the canceller found, far voice, \(tag)", voice.statistics?.echoDelayMilliseconds ?? .nan,
                unit: "ms", baseline: delay)
            report.add(
                "reference held back, far voice, \(tag)", voice.statistics?.referenceHeldBackMilliseconds ?? .nan,
                unit: "ms")
            report.add(
                "filter restarts, far voice, \(tag)",
                Double(voice.statistics?.filterRestarts ?? 0), unit: "count")
            report.add(
                "canceller allocations, \(tag)", Double(voice.allocations + gameCase.allocations), unit: "allocs",
                target: .atMost(0))
            report.add(
                "canceller time per 20 ms frame, \(tag)", voice.nanosecondsPerFrame / 1e3, unit: "µs")

            let doubleTalkRun = EchoCancellerRun(
                engineMix: far, near: near, path: path, configuration: cancellerConfiguration)
            let doubleTalk = try doubleTalkRun.run()
            report.add(
                "filter restarts while both talk, \(tag)",
                Double(doubleTalk.statistics?.filterRestarts ?? 0), unit: "count")
            let cancelled = directory + "/double-talk-\(tag)-cancelled.wav"
            let raw = directory + "/double-talk-\(tag)-uncancelled.wav"
            try Self.write(Array(doubleTalk.sent[nearStart...]), to: cancelled)
            try Self.write(Array(doubleTalk.captured[nearStart...]), to: raw)
            // The best any linear canceller can do: the room known exactly and taken off, leaving
            // only the echo of the loudspeaker's distortion, and the near end untouched.
            let distortion = path.distortionEcho(of: doubleTalkRun.played)
            let perfect = directory + "/double-talk-\(tag)-perfect-linear.wav"
            try Self.write((nearStart..<doubleTalk.sent.count).map { near[$0] + distortion[$0] }, to: perfect)
            // The echo merely turned down, the near end untouched: what a score asks of a canceller.
            let attenuated = Self.attenuatedEchoDecibels.map { decibels in
                directory + "/double-talk-\(tag)-echo-\(Int(decibels))-dB-down.wav"
            }
            for (decibels, file) in zip(Self.attenuatedEchoDecibels, attenuated) {
                let gain = Float(pow(10, -decibels / 20))
                try Self.write(
                    (nearStart..<doubleTalk.sent.count).map { near[$0] + gain * doubleTalk.echo[$0] }, to: file)
            }
            pending.append((delay, cancelled, raw, perfect, attenuated))
        }
        let scores = try scorer.score(
            reference: nearReference,
            degraded: [aloneFile] + pending.flatMap { [$0.cancelled, $0.raw, $0.perfect] + $0.attenuated })
        let ceiling = scores[aloneFile]?.pesq_wb ?? 0
        report.add("PESQ-WB, near end alone through the canceller", ceiling, unit: "PESQ-WB")
        report.add("delay the canceller adds", scores[aloneFile]?.delay_ms ?? .nan, unit: "ms")
        for item in pending {
            let tag = "\(Int(item.delay))ms"
            let cancelled = scores[item.cancelled]?.pesq_wb ?? 0
            let raw = scores[item.raw]?.pesq_wb ?? 0
            report.add(
                "double-talk PESQ-WB / no echo, \(tag)", cancelled / max(ceiling, 1e-9), unit: "ratio",
                baseline: raw / max(ceiling, 1e-9), target: .atLeast(0.9))
            report.add("double-talk PESQ-WB cancelled, \(tag)", cancelled, unit: "PESQ-WB", baseline: raw)
            let perfect = scores[item.perfect]?.pesq_wb ?? 0
            report.add(
                "double-talk PESQ-WB / no echo, a perfect linear canceller, \(tag)", perfect / max(ceiling, 1e-9),
                unit: "ratio")
            for (decibels, file) in zip(Self.attenuatedEchoDecibels, item.attenuated) {
                report.add(
                    "double-talk PESQ-WB / no echo, the echo \(Int(decibels)) dB down, \(tag)",
                    (scores[file]?.pesq_wb ?? 0) / max(ceiling, 1e-9), unit: "ratio")
            }
        }
        if !report.finish() { throw ExitCode.failure }
    }

    /// The echo's power over what was sent, on the frames from 2 s on where the echo is audible.
    static func erle(_ result: EchoCancellerRun.Result, reference: [Float]) -> Double {
        let start = Int(convergedAfterSeconds * Double(sampleRate))
        return erle(result, from: start, to: result.sent.count)
    }

    private static func erle(_ result: EchoCancellerRun.Result, from start: Int, to end: Int) -> Double {
        var echoPower = 0.0
        var sentPower = 0.0
        let frame = 960
        var index = start / frame * frame
        while index + frame <= end {
            let echo = power(result.echo[index..<(index + frame)])
            // Frames where the echo is below -60 dBFS hold nothing to cancel.
            if echo > 1e-6 {
                echoPower += echo
                sentPower += power(result.sent[index..<(index + frame)])
            }
            index += frame
        }
        guard echoPower > 0 else { return 0 }
        return 10 * log10(echoPower / max(sentPower, 1e-20))
    }

    /// When ERLE over the half second before first reached 25 dB, seconds; nil if it never did.
    static func convergenceSeconds(_ result: EchoCancellerRun.Result, reference: [Float]) -> Double? {
        let window = sampleRate / 2
        var end = window
        while end <= result.sent.count {
            if erle(result, from: end - window, to: end) >= 25 { return Double(end) / Double(sampleRate) }
            end += 960
        }
        return nil
    }

    private static func power(_ samples: ArraySlice<Float>) -> Double {
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        return sum / Double(max(samples.count, 1))
    }

    /// A microphone's self-noise: white, -70 dBFS.
    static func microphoneNoise(count: Int) -> [Float] {
        var generator = SeededRandom(seed: 3)
        let amplitude = Float(pow(10, -70.0 / 20)) * sqrt(3)
        return (0..<count).map { _ in amplitude * (Float(generator.next() % 20_001) / 10_000 - 1) }
    }

    /// A game's sound: pink noise, looped, 1.5 s on and 0.5 s off with 20 ms ramps, -26 dBFS.
    static func gameSound(_ noise: [Float], count: Int) -> [Float] {
        let rms = sqrt(noise.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(noise.count, 1)))
        let gain = Float(pow(10, -26.0 / 20) / max(rms, 1e-9))
        let cycle = 2 * sampleRate
        let on = 3 * sampleRate / 2
        let ramp = sampleRate / 50
        return (0..<count).map { index in
            let position = index % cycle
            let envelope: Float =
                position >= on ? 0 : Float(min(1, Double(min(position, on - position)) / Double(ramp)))
            return gain * envelope * noise[index % noise.count]
        }
    }

    static func write(_ samples: [Float], to path: String) throws {
        try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: samples).write(toFile: path)
    }
}
