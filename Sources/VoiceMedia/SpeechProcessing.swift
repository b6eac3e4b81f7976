import VoiceCodec
import VoiceCore

/// What the send pipeline does to the microphone's frames before it decides whether they are
/// speech: speexdsp's noise suppression and automatic gain control, and the level below which the
/// speech gate never opens. Changeable while a session runs.
public struct SpeechProcessing: Sendable, Hashable, Codable {
    /// speexdsp noise suppression.
    public var denoise: Bool
    /// speexdsp automatic gain control.
    public var automaticGainControl: Bool
    /// Frames quieter than this are never sent as speech, dBFS (`SpeechGate`'s absolute threshold);
    /// raise it to keep a noisy room out, lower it for a quiet talker.
    public var voiceActivityThresholdDBFS: Float

    /// What the threshold may be.
    public static let thresholds: ClosedRange<Float> = -120...0

    public init(
        denoise: Bool = false, automaticGainControl: Bool = false,
        voiceActivityThresholdDBFS: Float = SpeechGate.Configuration().absoluteThresholdDBFS
    ) {
        self.denoise = denoise
        self.automaticGainControl = automaticGainControl
        self.voiceActivityThresholdDBFS = voiceActivityThresholdDBFS
    }

    /// Throws `.invalidArgument` when the threshold is out of range or not a number.
    public func validate(operation: String = "SpeechProcessing.validate") throws(CodecError) {
        guard voiceActivityThresholdDBFS.isFinite, Self.thresholds.contains(voiceActivityThresholdDBFS) else {
            throw CodecError.invalidSetting(
                operation, setting: "voiceActivityThresholdDBFS", value: "\(voiceActivityThresholdDBFS) dBFS",
                allowed: "-120…0 dBFS")
        }
    }
}
