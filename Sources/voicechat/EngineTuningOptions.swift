import ArgumentParser
import VoiceCore
import VoiceEngine
import VoiceMedia

/// What every command that runs an engine may tune besides its frame length and bitrate: how
/// hard the encoder works, how much delay the engine may add, and what it does to the microphone
/// before deciding it hears speech.
struct EngineTuningOptions: ParsableArguments {
    @Option(help: "Opus encoder complexity, 0 (cheapest) to 10 (best) (e.g. --complexity 5).")
    var complexity = VoiceDefaults.complexity

    @Option(
        name: .customLong("max-delay-ms"),
        help: ArgumentHelp(
            "The most mouth-to-ear delay the engine may add, in ms, 40…1000; protection against loss and "
                + "jitter is chosen within it (default: 60 plus two frames, 100 at 20 ms frames) "
                + "(e.g. --max-delay-ms 150).",
            valueName: "ms"))
    var maximumDelayMilliseconds: Double?

    @Flag(
        help: "Suppress steady background noise in the microphone (speexdsp); change it live with the control socket.")
    var denoise = false

    @Flag(name: .customLong("agc"), help: "Even out the microphone's level (speexdsp automatic gain control).")
    var automaticGainControl = false

    // Unconditional: the value is negative, and would otherwise be read as an option.
    @Option(
        name: .customLong("vad-threshold-db"), parsing: .unconditional,
        help: ArgumentHelp(
            "Never send as speech what is quieter than this, in dBFS, -120…0: raise it to keep a noisy room out, "
                + "lower it for a quiet talker (default: \(Int(SpeechProcessing().voiceActivityThresholdDBFS))) "
                + "(e.g. --vad-threshold-db -45).",
            valueName: "dBFS"))
    var voiceActivityThresholdDBFS: Float?

    @Option(
        name: .customLong("echo-cancel"),
        help: ArgumentHelp(
            "Remove the speaker's echo from what the microphone sends: on, off, or auto, on when both are sound "
                + "devices and not files (default: auto) (e.g. --echo-cancel off with headphones).",
            valueName: "on|off|auto"))
    var echoCancellation = EchoCancellationMode.automatic

    /// The speech processing these options ask for.
    var speechProcessing: SpeechProcessing {
        var processing = SpeechProcessing(denoise: denoise, automaticGainControl: automaticGainControl)
        if let voiceActivityThresholdDBFS { processing.voiceActivityThresholdDBFS = voiceActivityThresholdDBFS }
        return processing
    }

    func validate() throws {
        try Self.check(voiceActivityThresholdDBFS, "--vad-threshold-db", in: SpeechProcessing.thresholds, unit: "dBFS")
        try validateComplexity(complexity)
        try Self.check(maximumDelayMilliseconds, "--max-delay-ms", in: DelayBudget.allowedMilliseconds, unit: "ms")
    }

    /// Refuses a value given for `option` that is not a finite number within `allowed`.
    private static func check<Value: BinaryFloatingPoint>(
        _ value: Value?, _ option: String, in allowed: ClosedRange<Value>, unit: String
    ) throws {
        guard let value, !(value.isFinite && allowed.contains(value)) else { return }
        throw ValidationError(
            "\(option) must be \(Int(allowed.lowerBound))…\(Int(allowed.upperBound)) \(unit), not \(value).")
    }
}

extension EchoCancellationMode: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "on": self = .on
        case "off": self = .off
        case "auto": self = .automatic
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["on", "off", "auto"] }
}
