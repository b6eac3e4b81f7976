import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// A match: any number of players, named channels each started, stopped and muted on its own,
/// player states, positions for proximity voice, and perhaps a relay; its events go to the match.
final class MatchSession: Session {
    let events: EventSink<MatchEvent>
    /// Last player state reported per (channel, player), so only changes become events.
    var reportedStates: [PlayerStateKey: PlayerState] = [:]
    /// Where the game says this participant stands, for positional channels.
    var ownPosition: VoicePosition?
    /// The direction to this participant's right (unit length), for panning; nil: everyone centred.
    var ownRight: VoicePosition?
    /// Whether the relay has yet to hear `ownPosition`, and when it last did.
    var isRelayPositionPending = false
    var relayPositionSentAt = MediaTime.min / 2

    init(
        id: String, sender: MediaID, players: some Sequence<ParticipantID>, client: any VoiceChatClient,
        events: EventSink<MatchEvent>, relay: (any RelayConnection)?, keys: SessionKeyPair
    ) {
        self.events = events
        super.init(reference: .match(id), sender: sender, client: client, keys: keys)
        self.relay = relay.map { SessionRelay(link: $0) }
        for player in players { peers[player] = RemotePeer(participant: player) }
    }

    /// A player hears the channels it started.
    override func hears(_ peer: RemotePeer, channel: ChannelNumber) -> Bool { peer.startedChannels.contains(channel) }

    override func accepts(_ channel: LocalChannel) -> Bool { channel.isStarted }

    override func tick(now: MediaTime, core: EngineCore) {
        core.sendPositionToRelay(self, now: now)
    }

    override func speakingChanged(core: EngineCore) { core.updatePlayerStates(self) }

    override func routeChanged(from: PathRoute?, to: PathRoute?, peer name: ParticipantID, core: EngineCore) {
        core.emit(.pathChanged(player: name, path: to?.kind), in: self)
        if from == nil, to != nil { core.emit(.playerConnection(player: name, connected: true), in: self) }
        core.updatePlayerStates(self)
    }

    /// A player gone leaves the others playing; what follows is sealed under a key it lacks.
    override func peerGone(_ name: ParticipantID, core: EngineCore) {
        core.markGone(name, in: self)
        core.updatePlayerStates(self)
        senderKeys.needsRekey = true
    }

    /// Places a positional channel's new stream where its sender stands.
    override func streamStarting(from peer: RemotePeer, on channel: LocalChannel, core: EngineCore) {
        if channel.proximity != nil { core.updateProximity(of: peer, on: channel, in: self) }
    }

    override func receivedGameData(_ data: UnsafeRawBufferPointer, from name: ParticipantID, core: EngineCore) {
        core.emit(.data(Array(data), from: name, mode: .unreliable), in: self)
    }
}
