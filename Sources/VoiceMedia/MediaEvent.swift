/// Something on the media path the application shows or reacts to.
public enum MediaEvent: Sendable, Hashable {
    /// A participant started or stopped speaking in a channel (with hysteresis, see `SpeakingDetector`).
    case speakingChanged(sender: UInt32, channel: UInt16, speaking: Bool)
}
