import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

extension EngineCore {
    func joinMatch(
        _ match: String, players: [ParticipantID], client: any VoiceChatClient, events: EventSink<MatchEvent>,
        relay: (any RelayConnection)? = nil, keys: SessionKeyPair, now: MediaTime
    ) throws(VoiceChatError) {
        guard !match.isEmpty, match.utf8.count <= SignallingMessage.maximumIdentifierBytes else {
            throw .invalidPlayers("a match ID must be 1…256 bytes")
        }
        guard sessions[.match(match)] == nil else { throw .invalidPlayers("already in match \"\(match)\"") }
        let others = Set(players).subtracting([participant])
        var seen: [MediaID: ParticipantID] = [mediaID: participant]
        for player in others {
            let id = player.mediaID
            if let clash = seen[id] {
                throw .invalidPlayers("players \"\(clash)\" and \"\(player)\" have the same media ID; rename one")
            }
            seen[id] = player
        }
        let session = MatchSession(
            id: match, sender: mediaID, players: others, client: client, events: events, relay: relay, keys: keys)
        session.senderKeys.create(channel: .session)
        sessions[session.reference] = session
        for player in others.sorted() { sendSignalling(helloMessage(for: session), to: player, in: session) }
    }

    func addPlayers(_ players: [ParticipantID], match: String) throws(VoiceChatError) {
        let session = try joinedMatch(match)
        var seen: [MediaID: ParticipantID] = [mediaID: participant]
        for peer in session.peers.values { seen[peer.mediaID] = peer.participant }
        var newcomers: [ParticipantID] = []
        for player in Set(players).subtracting([participant]).sorted() {
            if let known = session.peers[player], !known.isGone { continue }
            guard !player.isEmpty, player.rawValue.utf8.count <= SignallingMessage.maximumIdentifierBytes else {
                throw .invalidPlayers("a player ID must be 1…256 bytes")
            }
            let id = player.mediaID
            if let clash = seen[id], clash != player {
                throw .invalidPlayers("players \"\(clash)\" and \"\(player)\" have the same media ID; rename one")
            }
            seen[id] = player
            newcomers.append(player)
        }
        for player in newcomers {
            // A returning player starts over: whatever key and paths it had belong to its old session.
            session.peers[player] = RemotePeer(participant: player)
            sendSignalling(helloMessage(for: session), to: player, in: session)
        }
        if !newcomers.isEmpty { updatePlayerStates(session) }
    }

    func removePlayers(_ players: [ParticipantID], match: String) {
        guard let session = matchSession(match) else { return }
        var removed = false
        for player in Set(players).sorted() where markGone(player, in: session) { removed = true }
        guard removed else { return }
        updatePlayerStates(session)
        session.senderKeys.needsRekey = true
    }

    func leaveMatch(_ match: String) {
        guard let session = matchSession(match) else { return }
        for player in session.peers.keys.sorted() where session.peers[player]?.isGone == false {
            sendSignalling(.bye(match: match), to: player, in: session)
        }
        removeSession(session)
    }

    /// The match of that ID, if this participant is in it.
    func matchSession(_ match: String) -> MatchSession? { sessions[.match(match)] as? MatchSession }

    /// The match of that ID, for a call of the app that needs it.
    func joinedMatch(_ match: String) throws(VoiceChatError) -> MatchSession {
        guard let session = matchSession(match) else { throw .matchLeft(match) }
        return session
    }

    /// Creates the channel of that name (stopped, at full volume) if it does not exist yet.
    func openChannel(_ name: String, match: String) throws(VoiceChatError) -> ChannelNumber {
        let session = try joinedMatch(match)
        guard !name.isEmpty, name.utf8.count <= SignallingMessage.maximumIdentifierBytes else {
            throw .outOfRange("a channel name must be 1…256 bytes")
        }
        let number = ChannelNumber(named: name)
        if let existing = session.channels[number] {
            guard existing.name == name else { throw .channelNumberInUse(name: name, by: existing.name) }
            return number
        }
        let mixerChannel = try allocateMixerChannel(name: name)
        session.channels[number] = LocalChannel(number: number, name: name, mixerChannel: mixerChannel)
        session.senderKeys.create(channel: number)
        for peer in session.peers.values where !peer.isGone && peer.pairwiseKey != nil {
            let keys = session.senderKeys.wrapped(for: peer, channels: [number])
            sendSignalling(.keys(session.reference, keys), to: peer.participant, in: session)
        }
        updatePlayerStates(session)
        return number
    }

    func setChannel(_ number: ChannelNumber, started: Bool, match: String) throws(VoiceChatError) {
        let session = try joinedMatch(match)
        guard let channel = session.channels[number] else { throw .outOfRange("unknown channel") }
        guard channel.isStarted != started else { return }
        channel.isStarted = started
        do throws(MixerError) {
            if started {
                try mixer.start(channel: channel.mixerChannel)
            } else {
                try mixer.stop(channel: channel.mixerChannel)
            }
        } catch {
            throw .mixer(error)
        }
        if !started { removeStreams(in: session) { $0.channel == number } }
        mirrorToRelay(session)
        let announcement = ChannelAnnouncement(number: number, name: channel.name, isStarted: started)
        for peer in session.peers.values where !peer.isGone {
            sendSignalling(.channel(match: match, announcement), to: peer.participant, in: session)
        }
        updatePlayerStates(session)
    }

    /// Gives the microphone to `number` (taking it from the channel that had it), or takes it away.
    func setChannel(_ number: ChannelNumber, active: Bool, match: String) throws(VoiceChatError) {
        let session = try joinedMatch(match)
        guard session.channels[number] != nil else { throw .outOfRange("unknown channel") }
        if active {
            guard session.activeChannel != number else { return }
            session.activeChannel = number
        } else {
            guard session.activeChannel == number else { return }
            session.activeChannel = nil
        }
        try rebuildSendPipeline(session)
    }

    func setChannel(_ number: ChannelNumber, volume: Float, match: String) throws(VoiceChatError) {
        let session = try joinedMatch(match)
        guard let channel = session.channels[number] else { throw .outOfRange("unknown channel") }
        try Self.checkChannelVolume(volume)
        try? mixer.setVolume(volume, channel: channel.mixerChannel)
    }

    /// Refuses a channel volume outside 0…1.
    static func checkChannelVolume(_ volume: Float) throws(VoiceChatError) {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw .outOfRange("channel volume \(volume) is outside 0…1")
        }
    }

    func setPlayer(_ player: ParticipantID, muted: Bool, channel number: ChannelNumber, match: String)
        throws(VoiceChatError)
    {
        let session = try joinedMatch(match)
        guard let channel = session.channels[number] else { throw .outOfRange("unknown channel") }
        guard session.peers[player] != nil else { throw .invalidPlayers("\"\(player)\" is not a player of the match") }
        let id = player.mediaID
        try? mixer.setPlayer(id, muted: muted, channel: channel.mixerChannel)
        if muted {
            session.channels[number]?.mutedPlayers.insert(id)
        } else {
            session.channels[number]?.mutedPlayers.remove(id)
        }
        mirrorToRelay(session)
    }

    func sendGameData(_ data: [UInt8], to players: [ParticipantID]?, mode: GameDataMode, match: String)
        throws(VoiceChatError)
    {
        let session = try joinedMatch(match)
        let targets = players ?? session.peers.keys.sorted()
        for player in targets where session.peers[player] == nil {
            throw .invalidPlayers("\"\(player)\" is not a player of match \"\(match)\"")
        }
        switch mode {
        case .reliable:
            guard data.count <= SignallingMessage.maximumGameDataBytes else {
                throw .dataTooLarge(bytes: data.count, maximum: SignallingMessage.maximumGameDataBytes, mode: mode)
            }
            for player in targets { sendSignalling(.gameData(match: match, data), to: player, in: session) }
        case .unreliable:
            guard data.count <= 1000 else { throw .dataTooLarge(bytes: data.count, maximum: 1000, mode: mode) }
            for player in targets {
                guard let peer = session.peers[player], let route = peer.activeRoute else { continue }
                let sealed = data.withUnsafeBytes { bytes in
                    session.senderKeys.seal(
                        .gameData, channel: .session, destination: peer.mediaID, plaintext: bytes, into: envelope)
                }
                if let sealed { send(sealed, to: peer, route: route, session: session) }
            }
        }
    }
}
