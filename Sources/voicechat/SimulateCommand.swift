import ArgumentParser
import Foundation
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceSimulation

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a one-way call in virtual time through a simulated network and record what the listener heard.",
        discussion: """
            A sender engine encodes --input frame by frame; its packets cross a simulated network with \
            the given loss, delay, jitter, duplication and clock drift; a listener plays them out. What \
            the listener played is written to --output (48 kHz mono, on the capture timeline, so the \
            added delay can be measured by alignment) and one JSON line of statistics is printed. The \
            same seed gives the same output, byte for byte.

            Examples:
              voicechat simulate --input Fixtures/speech-male.wav --output heard.wav \\
                  --loss 0.1
              voicechat simulate --input Fixtures/speech-female.wav --output heard.wav \\
                  --loss 0.1 --burst 3 --jitter-ms 40
              voicechat simulate --input Fixtures/speech-male.wav --output base.wav \\
                  --loss 0.1 --receiver baseline
            """
    )

    @Option(help: ArgumentHelp("WAV file to send (any rate, mono or stereo).", valueName: "in.wav"))
    var input: String

    @Option(help: ArgumentHelp("WAV file for what the listener played.", valueName: "out.wav"))
    var output: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Packet loss probability, 0…1 (e.g. 0.1 for 10 %) (default: 0).", valueName: "0…1"),
        transform: NumericArgument.probability.double)
    var loss = 0.0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Mean length of loss bursts in packets, \(NumericArgument.burstLength); 1 means independent losses "
                + "(default: 1).", valueName: "packets"),
        transform: NumericArgument.burstLength.double)
    var burst = 1.0

    @Option(
        name: .customLong("delay-ms"), parsing: .unconditional,
        help: ArgumentHelp(
            "One-way base delay in ms, \(NumericArgument.networkDelay) (default: 20).", valueName: "ms"),
        transform: NumericArgument.networkDelay.double)
    var delayMilliseconds = 20.0

    @Option(
        name: .customLong("jitter-ms"), parsing: .unconditional,
        help: ArgumentHelp(
            "Extra delay drawn uniformly from [0, J] ms per packet (reorders packets), "
                + "\(NumericArgument.networkDelay) (default: 0).", valueName: "ms"),
        transform: NumericArgument.networkDelay.double)
    var jitterMilliseconds = 0.0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Probability that a packet is delivered twice, 0…1 (default: 0).", valueName: "0…1"),
        transform: NumericArgument.probability.double)
    var duplicate = 0.0

    @Option(
        name: .customLong("drift-ppm"), parsing: .unconditional,
        help: ArgumentHelp(
            "How much faster the sender's clock runs, in parts per million, \(NumericArgument.clockDrift) "
                + "(e.g. --drift-ppm -50) (default: 0).", valueName: "ppm"),
        transform: NumericArgument.clockDrift.double)
    var driftPPM = 0.0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seed of the network's random choices, \(NumericArgument.seed) (default: 1).", valueName: "seed"),
        transform: NumericArgument.seed.uint64)
    var seed: UInt64 = 1

    @Option(
        name: .customLong("frame-ms"), parsing: .unconditional,
        help: ArgumentHelp(
            "Frame length in ms: 5, 10, 20, 40 or 60; the simulation also tries the long frames a call does "
                + "not take (calls take 5, 10 or 20; 2.5 has no room for the repair copies simulated) "
                + "(default: \(VoiceDefaults.frameDuration.milliseconds.formatted)).", valueName: "ms"),
        transform: NumericArgument.frameLength.double)
    var frameMilliseconds = VoiceDefaults.frameDuration.milliseconds

    @OptionGroup var encoder: EncoderOptions

    var bitrate: Bitrate { encoder.bitrate }
    var complexity: Int { encoder.complexity }

    @Option(
        help:
            "Who listens: engine (adaptive jitter buffer, redundancy, FEC) or baseline (speexdsp jitter buffer + Opus PLC)."
    )
    var receiver: CallSimulation.Receiver = .engine

    @Option(help: ArgumentHelp("Also write the listener's buffer delay per frame as CSV.", valueName: "trace.csv"))
    var trace: String?

    func validate() throws {
        guard let duration = FrameDuration(milliseconds: frameMilliseconds), duration != .ms2_5 else {
            throw ValidationError("--frame-ms must be one of 5, 10, 20, 40, 60, not \(frameMilliseconds).")
        }
    }

    func run() throws {
        let recording: [Float]
        do {
            recording = try WAVFileInput.recording(path: input)
        } catch {
            throw CommandFailure(error.description)
        }
        var conditions = NetworkConditions()
        conditions.lossRate = loss
        conditions.meanBurstLength = burst
        conditions.baseDelayMilliseconds = delayMilliseconds
        conditions.jitterMilliseconds = jitterMilliseconds
        conditions.duplicateRate = duplicate
        let configuration = CallSimulation.Configuration(
            conditions: conditions, seed: seed, frameDuration: FrameDuration(milliseconds: frameMilliseconds) ?? .ms20,
            bitrate: bitrate.bitsPerSecond, complexity: complexity, driftPPM: driftPPM, receiver: receiver)

        let started = DispatchTime.now().uptimeNanoseconds
        let result = try CallSimulation.run(input: recording, configuration: configuration)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9

        do {
            try WAVAudio(format: .engineMono, sampleFormat: .int16, samples: result.heard).write(toFile: output)
        } catch {
            throw CommandFailure(error.description)
        }
        if let trace {
            try writeTrace(result.bufferDelayCSV, to: trace)
        }
        let settings = SimulationSummary.Settings(
            input: input, loss: loss, burst: burst, delayMilliseconds: delayMilliseconds,
            jitterMilliseconds: jitterMilliseconds, duplicate: duplicate, driftPPM: driftPPM, seed: seed,
            frameMilliseconds: frameMilliseconds, bitrate: bitrate.bitsPerSecond, complexity: complexity,
            receiver: receiver.rawValue)
        let summary = SimulationSummary(
            settings: settings, audioSeconds: result.audioSeconds, simulationSeconds: elapsed,
            statistics: result.receive, send: result.send, network: result.network)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(summary), as: UTF8.self))
    }

    private func writeTrace(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure("cannot write the trace '\(path)': \(error.localizedDescription)")
        }
    }
}

extension CallSimulation.Receiver: ExpressibleByArgument {}

extension NumericArgument {
    /// A probability.
    static let probability = NumericArgument(0...1)
    /// A mean loss burst, packets.
    static let burstLength = NumericArgument(1...1_000, unit: "packets")
    /// A simulated one-way delay or jitter, ms: up to a minute.
    static let networkDelay = NumericArgument(0...60_000, unit: "ms")
    /// A simulated clock drift, parts per million.
    static let clockDrift = NumericArgument(-10_000...10_000, unit: "ppm")
    /// A 64-bit seed.
    static let seed = NumericArgument(0...Double(UInt64.max), spelledRange: "0…\(UInt64.max)")
}
