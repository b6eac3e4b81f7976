import ArgumentParser
import VoiceCore
import VoiceEngine
import VoiceMedia

/// What every command that runs an engine may tune besides its frame length and bitrate: how
/// hard the encoder works, how much delay the engine may add, and what it does to the microphone
/// before deciding it hears speech.
struct EngineTuningOptions: ParsableArguments {
    @Option(
        parsing: .unconditional, help: ArgumentHelp(complexityHelp, valueName: "0…10"),
        transform: NumericArgument.complexity.int)
    var complexity = VoiceDefaults.complexity

    @Option(
        name: .customLong("max-delay-ms"), parsing: .unconditional,
        help: ArgumentHelp(
            "The most mouth-to-ear delay the engine may add, in ms, 40…1000; protection against loss and "
                + "jitter is chosen within it (default: 60 plus two frames, 100 at 20 ms frames) "
                + "(e.g. --max-delay-ms 150).",
            valueName: "ms"),
        transform: NumericArgument.delayBudget.double)
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
                + "lower it for a quiet talker; a sound that never changes (a steady tone, a hum) is taken for "
                + "background noise after a few seconds whatever the threshold, and no longer sent (default: \(Int(SpeechProcessing().voiceActivityThresholdDBFS))) "
                + "(e.g. --vad-threshold-db -45).",
            valueName: "dBFS"),
        transform: NumericArgument.voiceActivityThreshold.float)
    var voiceActivityThresholdDBFS: Float?

    @Option(
        name: .customLong("echo-cancel"),
        help: ArgumentHelp(
            "Remove the speaker's echo from what the microphone sends: on, off, or auto, on when both are sound "
                + "devices and not files (e.g. --echo-cancel off with headphones).",
            valueName: "on|off|auto"))
    var echoCancellation = EchoCancelChoice.auto

    /// The speech processing these options ask for.
    var speechProcessing: SpeechProcessing {
        var processing = SpeechProcessing(denoise: denoise, automaticGainControl: automaticGainControl)
        if let voiceActivityThresholdDBFS { processing.voiceActivityThresholdDBFS = voiceActivityThresholdDBFS }
        return processing
    }

    /// The engine's mode for `--echo-cancel`.
    var echoCancellationMode: EchoCancellationMode { echoCancellation.mode }
}

extension NumericArgument {
    /// The delay budget's range, ms.
    static let delayBudget = NumericArgument(DelayBudget.allowedMilliseconds, unit: "ms")
    /// The speech gate's thresholds, dBFS.
    static let voiceActivityThreshold = NumericArgument(
        Double(SpeechProcessing.thresholds.lowerBound)...Double(SpeechProcessing.thresholds.upperBound),
        unit: "dBFS")
}

/// `--echo-cancel`'s values as the command line spells them.
enum EchoCancelChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case auto, on, off

    var mode: EchoCancellationMode {
        switch self {
        case .auto: .automatic
        case .on: .on
        case .off: .off
        }
    }
}
