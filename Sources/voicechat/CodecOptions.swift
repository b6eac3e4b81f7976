import ArgumentParser
import VoiceCodec
import VoiceCore

/// The Opus settings a user may choose on the command line.
struct CodecOptions: ParsableArguments, FrameLengthOption {
    @Option(
        name: .customLong("frame-ms"), parsing: .unconditional,
        help: ArgumentHelp(
            "Frame length in ms: 2.5, 5, 10, 20, 40 or 60, every length Opus has, to hear the codec alone "
                + "(calls take 5, 10 or 20) (default: \(VoiceDefaults.frameDuration.milliseconds.formatted)).",
            valueName: "ms"),
        transform: NumericArgument.frameLength.double)
    var frameMilliseconds = VoiceDefaults.frameDuration.milliseconds

    @OptionGroup var encoder: EncoderOptions

    var bitrate: Bitrate { encoder.bitrate }
    var complexity: Int { encoder.complexity }

    @Flag(help: "Send Opus in-band forward error correction (recovers a lost frame from the next packet).")
    var fec = false

    func validate() throws {
        guard FrameDuration(milliseconds: frameMilliseconds) != nil else {
            throw ValidationError(
                "--frame-ms must be one of 2.5, 5, 10, 20, 40, 60 (Opus frame lengths), not \(frameMilliseconds).")
        }
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

/// The encoder's bitrate and complexity, for the commands that run Opus outside a call (a call's
/// options keep complexity with the engine's tuning).
struct EncoderOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Opus bitrate in bit/s, \(Bitrate.allowed); 'k' means thousands (e.g. 24k, 32000) (default: \(Bitrate.shipped)).",
            valueName: "bitrate"),
        transform: Bitrate.init(argument:))
    var bitrate = Bitrate.shipped

    @Option(
        parsing: .unconditional, help: ArgumentHelp(complexityHelp, valueName: "0…10"),
        transform: NumericArgument.complexity.int)
    var complexity = VoiceDefaults.complexity
}

/// A bitrate argument: plain bits per second or with a `k` suffix, within Opus's range.
struct Bitrate: CustomStringConvertible, Sendable {
    var bitsPerSecond: Int

    init(bitsPerSecond: Int) {
        self.bitsPerSecond = bitsPerSecond
    }

    /// Parses `24k` or `24000` through the one numeric check, in bit/s.
    init(argument: String) throws {
        let text = argument.lowercased()
        let thousands = text.hasSuffix("k")
        let number = try NumericArgument.bitrate(thousands: thousands).number(
            thousands ? String(text.dropLast()) : text)
        bitsPerSecond = Int((number * (thousands ? 1_000 : 1)).rounded())
    }

    var description: String {
        bitsPerSecond % 1_000 == 0 ? "\(bitsPerSecond / 1_000)k" : "\(bitsPerSecond)"
    }

    /// The bitrate the engine ships with.
    static let shipped = Bitrate(bitsPerSecond: VoiceDefaults.bitrate)

    /// What `--bitrate` takes, for help and messages.
    static var allowed: String {
        let bitrates = OpusEncoder.Configuration.allowedBitrates
        return "\(Bitrate(bitsPerSecond: bitrates.lowerBound))…\(Bitrate(bitsPerSecond: bitrates.upperBound))"
    }
}

extension NumericArgument {
    /// Opus's bitrates, in bit/s or in thousands of them.
    static func bitrate(thousands: Bool) -> NumericArgument {
        let bitrates = OpusEncoder.Configuration.allowedBitrates
        let scale = thousands ? 1_000.0 : 1
        return NumericArgument(
            Double(bitrates.lowerBound) / scale...Double(bitrates.upperBound) / scale,
            unit: thousands ? "kbit/s" : "bit/s")
    }

    /// Opus's encoder complexities.
    static var complexity: NumericArgument {
        let allowed = OpusEncoder.Configuration.allowedComplexities
        return NumericArgument(Double(allowed.lowerBound)...Double(allowed.upperBound))
    }

    /// Frame lengths from Opus's shortest to its longest, ms; each command then says which it takes.
    static let frameLength = NumericArgument(2.5...60, unit: "ms")
}

/// The help of every `--complexity`.
let complexityHelp =
    "Opus encoder complexity, 0 (cheapest) to 10 (best) (e.g. --complexity 5) "
    + "(default: \(VoiceDefaults.complexity))."

extension Double {
    /// This number as a person writes it (20, not 20.0), for help texts.
    var formatted: String { NumericArgument.format(self) }
}
