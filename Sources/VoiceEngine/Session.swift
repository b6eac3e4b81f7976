import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// A stream's identity inside a session: whose voice, in which channel.
struct StreamKey: Hashable {
    var sender: MediaID
    var channel: UInt16
}

/// Whose state in which channel a reported player state is.
struct PlayerStateKey: Hashable {
    var channel: UInt16
    var player: ParticipantID
}

/// What a listener keeps per remote stream besides the stream itself. A class: every frame reads
/// each one, and a copy would retain all it holds.
final class ReceivingStream {
    let stream: VoiceReceiveStream
    let participant: ParticipantID
    /// The mixer's ID of the stream's channel.
    let mixerChannel: UInt16
    var wasSpeaking = false
    var reports: ReportSchedule

    init(stream: VoiceReceiveStream, participant: ParticipantID, mixerChannel: UInt16, reports: ReportSchedule) {
        self.stream = stream
        self.participant = participant
        self.mixerChannel = mixerChannel
        self.reports = reports
    }
}

/// A 1:1 call or a match: the scope of one key agreement, one set of peers and their paths,
/// this participant's channels and sender keys, and the streams it hears.
///
/// Owned by `EngineCore`; one thread at a time.
final class Session {
    let reference: SessionReference
    /// The app's channel to the other participants of this session.
    let client: any VoiceChatClient
    /// Salt for pairwise keys: binds them to this session.
    let salt: [UInt8]
    let keyAgreement: KeyAgreement
    /// `keyAgreement`'s public key, derived once: deriving it is a scalar multiplication.
    let publicKey: [UInt8]
    var peers: [ParticipantID: RemotePeer] = [:] {
        didSet { if peers.count != mediaIndex.count { reindex() } }
    }
    /// Peers by the media ID their datagrams carry.
    private(set) var mediaIndex: [MediaID: ParticipantID] = [:]
    var opener = EnvelopeOpener()
    /// This participant's sender keys and sealers, by channel (0 = the session's own traffic).
    var ownKeys: [UInt16: OwnSenderKey] = [:]
    /// Set when players left: a tick moves every channel to a new key once, however many left
    /// since the last rekey, as soon as no earlier rekey is still waiting to switch.
    var needsRekey = false
    /// True while some channel's new key waits to be sealed under.
    var hasPendingKey: Bool { ownKeys.values.contains { $0.pending != nil } }
    /// True from a departure until every channel seals under the key it brought.
    var isChangingKeys: Bool { needsRekey || hasPendingKey }
    var sealers: [UInt16: EnvelopeSealer] = [:]
    var channels: [UInt16: LocalChannel] = [:]
    /// The channel that owns the microphone, if any.
    var activeChannel: UInt16?
    /// True while the game server has muted this participant through the relay. The relay drops
    /// what it is sent; the engine sends nothing on any path, direct ones included, where no
    /// relay could enforce it.
    var isServerMuted = false
    /// Encodes the microphone for `activeChannel`; rebuilt when it changes.
    var sendPipeline: VoiceSendPipeline?
    var streams: [StreamKey: ReceivingStream] = [:]
    /// What the streams that ended (a channel stopped, a player left) had received, until a new
    /// stream takes their place: the statistics keep reporting what was heard.
    var endedStreams: [StreamKey: ReceiveStatistics] = [:]
    /// Last player state reported per (channel, player), so only changes become events.
    var reportedStates: [PlayerStateKey: PlayerState] = [:]
    /// Calls only.
    var phase: CallPhase?
    /// Calls only: the caller's offer, kept until the app answers the invitation.
    var pendingOffer: SessionOffer?
    var hasStarted = false
    /// Events of a call go to the service; of a match, to the match.
    let events: SessionEvents
    /// The match's relay, when the app gave it one.
    var relay: SessionRelay?
    /// Where the game says this participant stands, for positional channels.
    var ownPosition: VoicePosition?
    /// The direction to this participant's right (unit length), for panning; nil: everyone centred.
    var ownRight: VoicePosition?
    /// Whether the relay has yet to hear `ownPosition`, and when it last did.
    var isRelayPositionPending = false
    var relayPositionSentAt = MediaTime.min / 2

    init(reference: SessionReference, client: any VoiceChatClient, events: SessionEvents, keys: SessionKeyPair) {
        self.reference = reference
        self.client = client
        self.events = events
        keyAgreement = keys.agreement
        publicKey = keys.publicKey
        switch reference {
        case .call(let id): salt = Array("voicechat call \(id)".utf8)
        case .match(let id): salt = Array("voicechat match \(id)".utf8)
        }
    }

    private func reindex() {
        mediaIndex = Dictionary(
            peers.values.map { ($0.mediaID, $0.participant) }, uniquingKeysWith: { first, _ in first })
    }

    func peer(for mediaID: MediaID) -> ParticipantID? { mediaIndex[mediaID] }

    var isCall: Bool {
        if case .call = reference { return true }
        return false
    }

    var identifier: String {
        switch reference {
        case .call(let id), .match(let id): id
        }
    }

    /// The peers who hear `channel` now: reachable, present, and (in a match) started it. Into a
    /// list kept from frame to frame, since it is asked for every captured frame.
    func listeners(of channel: UInt16, into listeners: inout [RemotePeer]) {
        listeners.removeAll(keepingCapacity: true)
        for peer in peers.values where peer.activeRoute != nil && (isCall || peer.startedChannels.contains(channel)) {
            listeners.append(peer)
        }
    }

    /// Whether voice in `channel` is sent and received now: a call's once it is active, a match's
    /// channel while it is started. (A call's one channel is started from the moment it exists.)
    func accepts(_ channel: LocalChannel) -> Bool {
        isCall ? phase == .active : channel.isStarted
    }
}

/// Where a session's events go.
enum SessionEvents {
    case call(EventSink<VoiceChatEvent>)
    case match(EventSink<MatchEvent>)
}
