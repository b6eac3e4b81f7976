import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// Everything a session knows about one other participant.
///
/// A class: the engine reads a flag or a route of each peer several times a frame, and a value
/// this size would be copied whole (retaining its key, paths and channel set) at every read.
final class RemotePeer {
    let participant: ParticipantID
    let mediaID: MediaID
    /// The peer's X25519 public key for this session, once its offer arrived.
    var publicKey: [UInt8]?
    var pairwiseKey: PairwiseKey?
    /// Paths to this peer; nil until its candidates arrive.
    var paths: PathSelector?
    /// Channels the peer has started (matches); a call's peer hears `callChannel` implicitly.
    var startedChannels: Set<ChannelNumber> = []
    /// Whether the peer ever had a working path (to tell "connecting" from "disconnected").
    var wasConnected = false
    /// Whether the peer left or was unreachable past the timeout.
    var isGone = false
    /// Where the peer stands, for positional channels: as the game placed it, else as its relay
    /// said.
    var position: VoicePosition?
    /// Whether the game placed this player itself; the relay's word on where it stands then no longer counts.
    var isPlacedByGame = false
    /// The positional channels on which the peer is within range of this participant, by the
    /// channel's hearing range and its margin; a direct path sends voice there only to these.
    var inRangeChannels: Set<ChannelNumber> = []

    init(participant: ParticipantID) {
        self.participant = participant
        self.mediaID = participant.mediaID
    }

    var activeRoute: PathRoute? { isGone ? nil : paths?.activeRoute }
}
