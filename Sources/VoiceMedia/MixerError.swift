import VoiceWire

/// A request the mixer cannot carry out, saying what was wrong and what to do instead.
public enum MixerError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownChannel(MixerChannelID)
    case duplicateChannel(MixerChannelID)
    case unknownStream(sender: MediaID, channel: MixerChannelID)
    case duplicateStream(sender: MediaID, channel: MixerChannelID)
    case volumeOutOfRange(Float)
    case playerVolumeOutOfRange(Float)
    case wrongFrameLength(got: Int, expected: Int)
    case invalidLimiter(DSPSettingError)
    case unsupportedChannels(Int)

    public var description: String {
        switch self {
        case .unknownChannel(let channel):
            "channel \(channel) is not in the mixer; add it with addChannel first"
        case .duplicateChannel(let channel):
            "channel \(channel) is already in the mixer; change it with start, stop and setVolume"
        case .unknownStream(let sender, let channel):
            "no stream from sender \(sender) in channel \(channel); register it with addStream first"
        case .duplicateStream(let sender, let channel):
            "the stream from sender \(sender) in channel \(channel) is already registered"
        case .volumeOutOfRange(let volume):
            "volume \(volume) is out of range; use 0…1 (0 mutes the channel)"
        case .playerVolumeOutOfRange(let volume):
            "a player's volume of \(volume) is out of range; use 0…2 (1 as they sent it, 0 silences them)"
        case .unsupportedChannels(let channels):
            "the mixer writes 1 (mono) or 2 (stereo) channels, not \(channels)"
        case .wrongFrameLength(let got, let expected):
            "got a frame of \(got) samples; this mixer works on frames of exactly \(expected) samples"
        case .invalidLimiter(let error):
            "the limiter settings are invalid: \(error)"
        }
    }
}
