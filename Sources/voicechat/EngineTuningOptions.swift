import ArgumentParser
import VoiceCore
import VoiceMedia

/// What every command that runs an engine may tune besides its frame length and bitrate: how
/// hard the encoder works and how much delay the engine may add.
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

    func validate() throws {
        try validateComplexity(complexity)
        if let maximumDelayMilliseconds {
            let allowed = DelayBudget.allowedMilliseconds
            guard maximumDelayMilliseconds.isFinite, allowed.contains(maximumDelayMilliseconds) else {
                throw ValidationError(
                    "--max-delay-ms must be \(Int(allowed.lowerBound))…\(Int(allowed.upperBound)) ms, not "
                        + "\(maximumDelayMilliseconds).")
            }
        }
    }
}
