import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// What a 1:1 call and a match share: the scope of one key agreement, one set of peers and their
/// paths, this participant's channels and sender keys, the outgoing stage that sends the
/// microphone to the peers and the incoming stage that opens what they send. What differs
/// between the two is in `CallSession` and `MatchSession`, which override the hooks below.
///
/// Owned by `EngineCore`; one thread at a time.
class Session {
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
    /// This participant's sender keys, by channel, and their rekeying.
    let senderKeys: SenderKeys
    var channels: [ChannelNumber: LocalChannel] = [:]
    /// The channel that owns the microphone, if any.
    var activeChannel: ChannelNumber?
    /// A captured frame's way out: encoded once for `activeChannel`, sealed, sent to each listener.
    let outgoing = OutgoingVoice()
    /// A datagram's way in: opened, dispatched, put in its stream.
    let incoming = IncomingVoice()
    /// The session's relay, when the app gave it one (matches only, for now).
    var relay: SessionRelay?
    /// True while the game server has muted this participant through the relay. The relay drops
    /// what it is sent; the engine sends nothing on any path, direct ones included, where no
    /// relay could enforce it.
    var isServerMuted = false

    init(reference: SessionReference, sender: MediaID, client: any VoiceChatClient, keys: SessionKeyPair) {
        self.reference = reference
        senderKeys = SenderKeys(sender: sender)
        self.client = client
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

    var identifier: String {
        switch reference {
        case .call(let id), .match(let id): id
        }
    }

    /// The peers who hear `channel` now, into a list kept from frame to frame, since it is asked
    /// for every captured frame.
    func listeners(of channel: ChannelNumber, into listeners: inout [RemotePeer]) {
        listeners.removeAll(keepingCapacity: true)
        for peer in peers.values where peer.activeRoute != nil && hears(peer, channel: channel) {
            listeners.append(peer)
        }
    }

    // MARK: What a call and a match do differently

    /// Whether `peer`, reachable, hears this participant's `channel`.
    func hears(_ peer: RemotePeer, channel: ChannelNumber) -> Bool {
        preconditionFailure("\(Self.self) must say who hears a channel")
    }

    /// Whether voice in `channel` is sent and received now.
    func accepts(_ channel: LocalChannel) -> Bool {
        preconditionFailure("\(Self.self) must say when a channel carries voice")
    }

    /// Once a frame, before the microphone's frame is sent: timeouts and what the session keeps
    /// others told of.
    func tick(now: MediaTime, core: EngineCore) {}

    /// Some stream of the session started or stopped speaking in the last mix.
    func speakingChanged(core: EngineCore) {}

    /// The route to `name` changed (nil: none works now).
    func routeChanged(from: PathRoute?, to: PathRoute?, peer name: ParticipantID, core: EngineCore) {
        preconditionFailure("\(Self.self) must say what a route change means")
    }

    /// `name` left, or was unreachable past the timeout.
    func peerGone(_ name: ParticipantID, core: EngineCore) {
        preconditionFailure("\(Self.self) must say what a departure means")
    }

    /// A stream from `peer` on `channel` is about to start.
    func streamStarting(from peer: RemotePeer, on channel: LocalChannel, core: EngineCore) {}

    /// `name` sent the game's data on a real-time path.
    func receivedGameData(_ data: UnsafeRawBufferPointer, from name: ParticipantID, core: EngineCore) {}

    /// The app set the volume of calls' remote participants.
    func remoteParticipantVolumeChanged(_ volume: Float, mixer: VoiceMixer) {}
}
