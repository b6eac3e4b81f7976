import Synchronization
import VoiceCore
import VoiceTransport
import VoiceWire

/// A group of players who talk in named channels and exchange game data (GameKit's `GKMatch`).
///
/// Every player's app creates a `Match` with the same match ID and player list; the engines find
/// each other through the app's `client` (signalling) and then talk over the best real-time path
/// to each player (a full mesh). Every method may be called from any thread.
public final class Match: Sendable {
    public let matchID: String
    public let engine: VoiceEngine
    public let client: any VoiceChatClient
    /// Player states per channel, connections, path changes and game data, in order.
    public let events: AsyncStream<MatchEvent>
    /// The relay this match uses, if any.
    public let relay: RelayOptions?
    private let sink: EventSink<MatchEvent>
    private let relayLink: (any RelayConnection)?

    /// Joins the match: introduces this engine to every other player in `players`.
    ///
    /// - Parameters:
    ///   - relay: a relay for this match's voice and unreliable game data: a path that works when
    ///     no direct one does (or, with `isPrimary`, the path from the start). The engine joins it
    ///     over UDP and TCP at once, as allowed, so that either takes over within about a second.
    ///   - onEvent: called with every event as well, right after it happens (never on the engine
    ///     thread, never under the engine's lock, never on an audio thread).
    public init(
        engine: VoiceEngine, client: any VoiceChatClient, matchID: String, players: [ParticipantID],
        relay: RelayOptions? = nil, onEvent: (@Sendable (MatchEvent) -> Void)? = nil
    ) throws(VoiceChatError) {
        self.matchID = matchID
        self.engine = engine
        self.client = client
        self.relay = relay
        let (events, sink) = EventSink<MatchEvent>.makeStream(handler: onEvent)
        self.events = events
        self.sink = sink
        let link: (any RelayConnection)?
        if let relay {
            try Self.validate(relay)
            guard let relays = engine.relays else {
                throw .outOfRange(
                    "this engine cannot reach a relay: create it with a relay connector (VoiceIO's RelayLinks)")
            }
            link = relays.connection(
                options: relay, participant: engine.participant, matchID: matchID,
                forcedPath: engine.configuration.forcedPath)
        } else {
            link = nil
        }
        relayLink = link
        let now = engine.now
        let keys = SessionKeyPair()
        try engine.withCore { core throws(VoiceChatError) in
            try core.joinMatch(
                matchID, players: players, client: client, events: sink, relay: link, keys: keys, now: now)
        }
        link?.start(engine: engine)
    }

    private static func validate(_ relay: RelayOptions) throws(VoiceChatError) {
        guard !relay.host.isEmpty else { throw .outOfRange("the relay's host is empty; give its name or address") }
        for port in [relay.port, relay.tcpPort ?? relay.port] where !(1...65_535).contains(port) {
            throw .outOfRange("relay port \(port) is outside 1…65535")
        }
        guard !relay.token.isEmpty else {
            throw .outOfRange("the relay token is empty; the game server issues one per match and player")
        }
        guard relay.allowsUDP || relay.allowsTCP else {
            throw .outOfRange("the relay options allow neither UDP nor TCP; allow at least one")
        }
    }

    deinit { sink.continuation.finish() }

    /// Introduces this engine to players who arrived after the match was created, exactly as
    /// `init` does for the players it is given. Players already present, and this participant
    /// itself, are skipped; a player who left (or was removed) is introduced afresh. Nothing
    /// changes if any player is unusable (empty, too long, or sharing a media ID with another).
    public func addPlayers(_ players: [ParticipantID]) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.addPlayers(players, match: matchID) }
    }

    /// Treats `players` as gone, as if they had left: their streams end, their state becomes
    /// disconnected in every channel, and this participant's keys are renewed so they cannot read
    /// what it sends next (from the engine's next tick). Unknown or already gone players are
    /// skipped.
    public func removePlayers(_ players: [ParticipantID]) {
        engine.withCore { core in core.removePlayers(players, match: matchID) }
    }

    /// Signalling that the app received for this match.
    public func received(_ data: [UInt8], from player: ParticipantID) {
        engine.receiveSignalling(data, from: player, client: client, events: .match(sink))
    }

    /// Real-time data that the app received on its own channel (the app-carried path).
    public func receivedRealTime(_ data: [UInt8], from player: ParticipantID) {
        engine.receiveDatagram(data, route: .appCarried)
    }

    /// The voice channel of that name; players who start the same name hear each other.
    public func voiceChat(named name: String) throws(VoiceChatError) -> VoiceChannel {
        let number = try engine.withCore { core throws(VoiceChatError) in try core.openChannel(name, match: matchID) }
        return VoiceChannel(name: name, number: number, match: self)
    }

    /// Where this player stands in the game's world, for the match's positional channels (up
    /// to 30 times a second, say, as the game moves it; finite coordinates in the game's units),
    /// and, for a stereo speaker, the direction to its right (its camera's right vector; nil
    /// keeps the last one given, and without one everyone is heard in the centre). The relay
    /// hears the position too, at most every 33 ms, and forwards to this player only the voice
    /// of players in range.
    public func setPosition(_ position: VoicePosition, right: VoicePosition? = nil) throws(VoiceChatError) {
        let now = engine.now
        try engine.withCore { core throws(VoiceChatError) in
            try core.setPosition(position, right: right, of: nil, match: matchID, now: now)
        }
    }

    /// Where another player stands, as the game knows it: how loud they are heard on positional
    /// channels, and whether a direct path sends them this player's voice there. Until both
    /// positions are known, a player is out of range.
    public func setPosition(_ position: VoicePosition, of player: ParticipantID) throws(VoiceChatError) {
        let now = engine.now
        try engine.withCore { core throws(VoiceChatError) in
            try core.setPosition(position, of: player, match: matchID, now: now)
        }
    }

    /// Sends the game's own data to `players` (nil: everyone). Reliable data goes through the
    /// app's client in order, up to 87 KB; unreliable data goes on the real-time path, up to 1000
    /// bytes, and is dropped for players without a path.
    public func send(_ data: [UInt8], to players: [ParticipantID]? = nil, mode: GameDataMode) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in
            try core.sendGameData(data, to: players, mode: mode, match: matchID)
        }
    }

    /// The path voice to `player` takes now, if any.
    public func path(to player: ParticipantID) -> RealTimePathKind? {
        engine.withCore { core in core.matchSession(matchID)?.peers[player]?.activeRoute?.kind }
    }

    /// Leaves the match, telling every player, and closes the relay connections in the background.
    public func disconnect() {
        engine.withCore { core in core.leaveMatch(matchID) }
        sink.continuation.finish()
        if let relayLink { Task { await relayLink.close() } }
    }

    /// Leaves the match like `disconnect()`, and returns once the relay connections are closed.
    public func leave() async {
        engine.withCore { core in core.leaveMatch(matchID) }
        sink.continuation.finish()
        await relayLink?.close()
    }

    /// A fresh relay token for this player (after `.relayFailed(_, .refused(.expired))`, for
    /// instance): the relay clients join again with it.
    public func updateRelayToken(_ token: String) {
        relayLink?.updateToken(token)
    }
}

/// One named voice channel of a match (GameKit's `GKVoiceChat`).
public final class VoiceChannel: Sendable {
    public let name: String
    /// The number its voice packets carry.
    public let number: ChannelNumber
    public let match: Match

    init(name: String, number: ChannelNumber, match: Match) {
        self.name = name
        self.number = number
        self.match = match
    }

    private var engine: VoiceEngine { match.engine }
    private var matchID: String { match.matchID }

    /// Starts hearing the channel, and lets the others send to it.
    public func start() throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.setChannel(number, started: true, match: matchID)
        }
    }

    /// Stops the channel: it receives nothing and the others stop sending to it.
    public func stop() throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.setChannel(number, started: false, match: matchID)
        }
    }

    public var isStarted: Bool {
        engine.withCore { core in core.matchSession(matchID)?.channels[number]?.isStarted ?? false }
    }

    /// Whether this channel owns the microphone. Activating it takes the microphone from the
    /// channel that had it.
    public var isActive: Bool {
        engine.withCore { core in core.matchSession(matchID)?.activeChannel == number }
    }

    public func setActive(_ active: Bool) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.setChannel(number, active: active, match: matchID)
        }
    }

    /// 0…1; 0 silences the channel.
    public func setVolume(_ volume: Float) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.setChannel(number, volume: volume, match: matchID)
        }
    }

    public var volume: Float {
        engine.withCore { core in
            guard let channel = core.matchSession(matchID)?.channels[number] else { return 0 }
            return core.mixer.channel(channel.mixerChannel)?.volume ?? 0
        }
    }

    /// Makes the channel positional (nil: heard whole again): players are heard only within the
    /// range and fainter with distance (`Match.setPosition`); the relay forwards to each listener
    /// only the voice of players within its range, and direct paths send only to those.
    public func setProximity(_ settings: ProximitySettings?) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in
            try core.setProximity(settings, channel: number, match: matchID)
        }
    }

    public var proximity: ProximitySettings? {
        engine.withCore { core in core.matchSession(matchID)?.channels[number]?.proximity }
    }

    /// Mutes or unmutes one player in this channel only; a muted player is not even decoded.
    public func setPlayer(_ player: ParticipantID, muted: Bool) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in
            try core.setPlayer(player, muted: muted, channel: number, match: matchID)
        }
    }

    /// The players muted in this channel, however they were muted.
    public var mutedPlayers: Set<ParticipantID> {
        engine.withCore { core in
            guard let session = core.matchSession(matchID), let channel = session.channels[number] else {
                return []
            }
            return Set(channel.mutedPlayers.compactMap { session.peer(for: $0) })
        }
    }

    /// Every other player's last reported state in this channel.
    public var playerStates: [ParticipantID: PlayerState] {
        engine.withCore { core in
            guard let session = core.matchSession(matchID) else { return [:] }
            var states: [ParticipantID: PlayerState] = [:]
            for player in session.peers.keys {
                states[player] = session.reportedStates[PlayerStateKey(channel: number, player: player)] ?? .connecting
            }
            return states
        }
    }
}
