import VoiceCore

/// A player of a match as the relay it joined tells the match's other relays: what they need to
/// decide, on their side, whether it hears each of their players and is heard by them.
public struct RelayPeerMember: Sendable, Hashable {
    public var mediaID: MediaID
    public var participant: String
    /// Started channels besides channel 0; at most `RelayJoin.maximumChannels`.
    public var channels: [ChannelNumber]
    /// Media IDs it does not want to hear; at most `RelayJoin.maximumMutes`.
    public var muted: [MediaID]
    /// The channels it hears positionally, each with its range (positive and finite).
    public var hearingRanges: [ChannelNumber: Float]
    public var position: VoicePosition?

    public init(
        mediaID: MediaID, participant: String, channels: [ChannelNumber] = [], muted: [MediaID] = [],
        hearingRanges: [ChannelNumber: Float] = [:], position: VoicePosition? = nil
    ) {
        self.mediaID = mediaID
        self.participant = participant
        self.channels = channels
        self.muted = muted
        self.hearingRanges = hearingRanges
        self.position = position
    }
}
