import VoiceCore
import VoiceWire

/// What a relay client reports besides datagrams: what the engine's relay routes follow.
public enum RelayClientEvent: Sendable, Hashable {
    case joined(mediaID: MediaID)
    /// Nothing from the relay within the liveness timeout (or the TCP connection closed).
    case lost
    case refused(RelayRefusal)
    case kicked(RelayKickReason)
    /// The game server moved this member: its started channels are now exactly `channel` (0: none).
    case moved(channel: ChannelNumber)
    case serverMute(Bool)
    /// Where another member of the match (by media ID) stands, as the relay knows it: what it
    /// reported, or where the game server placed it.
    case position(mediaID: MediaID, VoicePosition)
}
