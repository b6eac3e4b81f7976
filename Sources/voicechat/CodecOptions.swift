import ArgumentParser
import VoiceCodec
import VoiceCore

/// The Opus settings a user may choose on the command line.
struct CodecOptions: ParsableArguments, FrameLengthOption {
    @Option(
        name: .customLong("frame-ms"),
        help: ArgumentHelp(
            "Frame length in ms: 2.5, 5, 10, 20, 40 or 60, every length Opus has, to hear the codec alone "
                + "(calls take 5, 10 or 20)."))
    var frameMilliseconds = VoiceDefaults.frameDuration.milliseconds

    @Option(help: ArgumentHelp("Opus bitrate in bit/s; 'k' means thousands (e.g. 24k, 32000).", valueName: "bitrate"))
    var bitrate = Bitrate(bitsPerSecond: VoiceDefaults.bitrate)

    @Option(help: "Encoder complexity, 0 (cheapest) to 10 (best).")
    var complexity = VoiceDefaults.complexity

    @Flag(help: "Send Opus in-band forward error correction (recovers a lost frame from the next packet).")
    var fec = false

    func validate() throws {
        guard FrameDuration(milliseconds: frameMilliseconds) != nil else {
            throw ValidationError(
                "--frame-ms must be one of 2.5, 5, 10, 20, 40, 60 (Opus frame lengths), not \(frameMilliseconds).")
        }
        try validateBitrate(bitrate)
        try validateComplexity(complexity)
    }

    /// The encoder settings these options describe, for mono 48 kHz voice.
    func encoderConfiguration() -> OpusEncoder.Configuration {
        var configuration = OpusEncoder.Configuration()
        configuration.frameDuration = frameDuration
        configuration.bitrate = bitrate.bitsPerSecond
        configuration.complexity = complexity
        configuration.inbandFEC = fec
        // FEC is only emitted when the encoder expects loss (PLATFORM.md); a modest hint makes
        // the flag do what it says.
        configuration.packetLossPercent = fec ? 10 : 0
        return configuration
    }
}

/// Options with a `--frame-ms` that their `validate()` checks is a frame length.
protocol FrameLengthOption {
    var frameMilliseconds: Double { get }
}

extension FrameLengthOption {
    var frameDuration: FrameDuration {
        // validate() has already checked it.
        FrameDuration(milliseconds: frameMilliseconds) ?? .ms20
    }
}

/// A bitrate argument: plain bits per second or with a `k` suffix.
struct Bitrate: ExpressibleByArgument, CustomStringConvertible {
    var bitsPerSecond: Int

    init(bitsPerSecond: Int) {
        self.bitsPerSecond = bitsPerSecond
    }

    init?(argument: String) {
        let text = argument.lowercased()
        let multiplier = text.hasSuffix("k") ? 1_000 : 1
        // Finite and far below Int's range, so that nan, inf or 1e300 is refused instead of trapping.
        guard let number = Double(text.hasSuffix("k") ? String(text.dropLast()) : text), number > 0,
            number * Double(multiplier) < 1e9
        else { return nil }
        bitsPerSecond = Int(number * Double(multiplier))
    }

    var description: String {
        bitsPerSecond % 1_000 == 0 ? "\(bitsPerSecond / 1_000)k" : "\(bitsPerSecond)"
    }
}

/// Refuses a bitrate outside Opus's range, naming the option.
func validateBitrate(_ bitrate: Bitrate) throws {
    let bitrates = OpusEncoder.Configuration.allowedBitrates
    guard bitrates.contains(bitrate.bitsPerSecond) else {
        throw ValidationError(
            "--bitrate must be between \(Bitrate(bitsPerSecond: bitrates.lowerBound)) and "
                + "\(Bitrate(bitsPerSecond: bitrates.upperBound)) bit/s (Opus's range), not \(bitrate.bitsPerSecond)."
        )
    }
}

/// Refuses an Opus complexity outside 0…10, naming the option.
func validateComplexity(_ complexity: Int) throws {
    let allowed = OpusEncoder.Configuration.allowedComplexities
    guard allowed.contains(complexity) else {
        throw ValidationError(
            "--complexity must be \(allowed.lowerBound)…\(allowed.upperBound) (0 cheapest, 10 best), not \(complexity)."
        )
    }
}
