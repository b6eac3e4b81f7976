import CVoiceChatABI
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceRelayClient
import VoiceWire

let matches = HandleRegistry<MatchHandle>(kind: 2)

@_cdecl("vc_relay_join_options_init")
public func cRelayJoinOptionsInit(_ options: UnsafeMutablePointer<vc_relay_join_options>?) {
    guard let options else { return }
    options.pointee = vc_relay_join_options()
    options.pointee.struct_size = UInt32(MemoryLayout<vc_relay_join_options>.size)
    options.pointee.port = 7_700
}

/// `options.other_relays`: "HOST:PORT,HOST:PORT", none when NULL or empty.
private func otherRelays(_ pointer: UnsafePointer<CChar>?) throws(CallFailure) -> [String] {
    guard let pointer else { return [] }
    let list = try text(pointer, "options.other_relays", allowEmpty: true)
    guard !list.isEmpty else { return [] }
    return try list.split(separator: ",", omittingEmptySubsequences: false).map { entry throws(CallFailure) in
        guard RelayClientConfiguration.hostAndPort(String(entry)) != nil else {
            throw .invalidArgument(
                "options.other_relays: \"\(entry)\" is not HOST:PORT; give the relays as \"HOST:PORT,HOST:PORT\"")
        }
        return String(entry)
    }
}

/// Registers a match made under `number`, which its events already carry.
private func register(_ match: MatchHandle, as number: OpaquePointer) {
    match.owner.matches.withLock { $0[match.number] = match }
    matches.add(match, as: number)
}

@_cdecl("vc_match_join_relay")
public func cMatchJoinRelay(
    _ engine: OpaquePointer?, _ options: UnsafePointer<vc_relay_join_options>?,
    _ match: UnsafeMutablePointer<OpaquePointer?>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let match = try handlePlace(match, "match")
        let owner = try engines.object(engine, "engine")
        let given = try sized(options, "options", filledBy: "fill them with vc_relay_join_options_init")
        let matchID = try text(given.match, "options.match", maximumBytes: RelayToken.maximumIDBytes)
        let host = try text(given.host, "options.host", maximumBytes: 255)
        guard given.port != 0 else { throw .invalidArgument("options.port is 0; give the relay's port (default 7700)") }
        let otherRelays = try otherRelays(given.other_relays)
        let token = try text(given.token, "options.token", maximumBytes: 4_096)
        let participant = owner.engine.participant
        let parsed: RelayToken
        do {
            parsed = try RelayToken(parsing: token)
        } catch {
            throw .invalidArgument(
                "options.token is not a relay token (\(error)); pass it whole as vc_token_sign wrote it")
        }
        guard parsed.match == matchID, parsed.participant == participant.rawValue else {
            throw .invalidArgument(
                "options.token admits \"\(parsed.participant)\" to match \"\(parsed.match)\", not \"\(participant)\" "
                    + "to \"\(matchID)\"; ask the game server for a token for this player and match")
        }
        let number = matches.reserve()
        let tag = HandleRegistry<MatchHandle>.number(number)
        let roster = MatchRoster()
        let events = owner.events
        let port = Int(given.port)
        let client = try waitFor { () async throws(CallFailure) -> RelayMatchClient in
            do {
                return try await RelayMatchClient.connect(
                    host: host, port: port, otherRelays: otherRelays, token: token, participant: participant
                ) { event in
                    roster.note(event)
                    if let record = EngineEventRecord(event, match: tag) { events.post(record) }
                }
            } catch {
                throw CallFailure(VC_ERROR_SYSTEM, "cannot reach the relay at \(host) port \(port): \(error)")
            }
        }
        var relay = RelayOptions(host: host, port: port, token: token)
        relay.isPrimary = given.relay_primary != 0
        relay.otherRelays = otherRelays
        let joined: Match
        do throws(VoiceChatError) {
            joined = try Match(
                engine: owner.engine, client: client, matchID: matchID, players: [], relay: relay
            ) { event in
                roster.note(event)
                events.post(EngineEventRecord(event, match: tag))
            }
        } catch {
            try? waitFor { () async throws(CallFailure) in await client.close() }
            throw failure(error)
        }
        client.attach(joined)
        register(MatchHandle(match: joined, owner: owner, number: tag, relayClient: client, roster: roster), as: number)
        match.pointee = number
    }
}

@_cdecl("vc_match_create")
public func cMatchCreate(
    _ engine: OpaquePointer?, _ matchID: UnsafePointer<CChar>?, _ players: UnsafePointer<UnsafePointer<CChar>?>?,
    _ playerCount: Int, _ match: UnsafeMutablePointer<OpaquePointer?>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let match = try handlePlace(match, "match")
        let owner = try engines.object(engine, "engine")
        let id = try text(matchID, "match_id", maximumBytes: RelayToken.maximumIDBytes)
        let names = try playerNames(players, playerCount)
        let number = matches.reserve()
        let tag = HandleRegistry<MatchHandle>.number(number)
        let roster = MatchRoster()
        roster.add(names)
        let events = owner.events
        let client = AppCarriedClient(
            participant: owner.engine.participant, offersRealTimeData: owner.offersRealTimeData, events: events,
            match: tag)
        let made = try engineCall { () throws(VoiceChatError) in
            try Match(engine: owner.engine, client: client, matchID: id, players: names) { event in
                roster.note(event)
                events.post(EngineEventRecord(event, match: tag))
            }
        }
        register(MatchHandle(match: made, owner: owner, number: tag, relayClient: nil, roster: roster), as: number)
        match.pointee = number
    }
}

/// Player names from a C array: `count` non-NULL UTF-8 strings (NULL with 0 for none).
private func playerNames(_ players: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) throws(CallFailure)
    -> [ParticipantID]
{
    guard count != 0 else { return [] }
    guard let players else { throw .invalidArgument("players is NULL but player_count is \(count)") }
    guard count > 0, count <= 4_096 else { throw .invalidArgument("player_count is \(count); give 0…4096") }
    var names: [ParticipantID] = []
    for index in 0..<count {
        names.append(try participantID(players[index], "players[\(index)]"))
    }
    return names
}

@_cdecl("vc_match_add_player")
public func cMatchAddPlayer(_ match: OpaquePointer?, _ player: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let name = try participantID(player, "player")
        try engineCall { () throws(VoiceChatError) in try handle.match.addPlayers([name]) }
        handle.roster.add([name])
    }
}

@_cdecl("vc_match_remove_player")
public func cMatchRemovePlayer(_ match: OpaquePointer?, _ player: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let name = try participantID(player, "player")
        guard handle.roster.contains(name) else {
            throw CallFailure(VC_ERROR_NOT_FOUND, "\"\(name)\" is not a player of this match")
        }
        handle.match.removePlayers([name])
        handle.roster.remove(name)
    }
}

@_cdecl("vc_match_receive_signalling")
public func cMatchReceiveSignalling(
    _ match: OpaquePointer?, _ from: UnsafePointer<CChar>?, _ data: UnsafePointer<UInt8>?, _ length: Int
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let sender = try participantID(from, "from")
        let bytes = try received(data, length, maximum: 1 << 20)
        handle.match.received(bytes, from: sender)
    }
}

@_cdecl("vc_match_leave")
public func cMatchLeave(_ match: OpaquePointer?) -> vc_result {
    answer { () throws(CallFailure) in
        guard match != nil else { throw .invalidArgument("match is NULL") }
        guard let handle = matches.remove(match) else {
            throw CallFailure(VC_ERROR_INVALID_HANDLE, "match is not a live handle: it was left already")
        }
        handle.owner.matches.withLock { _ = $0.removeValue(forKey: handle.number) }
        try waitFor { () async throws(CallFailure) in await handle.leave() }
    }
}

@_cdecl("vc_match_start_channel")
public func cMatchStartChannel(_ match: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let channel = try handle.channel(text(name, "name", maximumBytes: RelayMessage.maximumChannelNameBytes))
        try engineCall { () throws(VoiceChatError) in try channel.start() }
    }
}

@_cdecl("vc_match_stop_channel")
public func cMatchStopChannel(_ match: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let channel = try handle.openedChannel(text(name, "name", maximumBytes: RelayMessage.maximumChannelNameBytes))
        try engineCall { () throws(VoiceChatError) in try channel.stop() }
    }
}

@_cdecl("vc_match_set_active_channel")
public func cMatchSetActiveChannel(_ match: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        guard name != nil else {
            for channel in handle.openedChannels where channel.isActive {
                try engineCall { () throws(VoiceChatError) in try channel.setActive(false) }
            }
            return
        }
        let channel = try handle.openedChannel(text(name, "name", maximumBytes: RelayMessage.maximumChannelNameBytes))
        try engineCall { () throws(VoiceChatError) in try channel.setActive(true) }
    }
}

@_cdecl("vc_match_set_proximity")
public func cMatchSetProximity(
    _ match: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ range: Float, _ referenceDistance: Float,
    _ linear: Int32
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let channel = try handle.openedChannel(text(name, "name", maximumBytes: RelayMessage.maximumChannelNameBytes))
        var settings: ProximitySettings?
        if range != 0 {
            do {
                settings = try ProximitySettings(
                    range: range, referenceDistance: referenceDistance,
                    rolloff: linear != 0 ? .linear : .inverseDistance)
            } catch {
                throw .invalidArgument("range \(range), reference_distance \(referenceDistance): \(error)")
            }
        }
        try engineCall { () throws(VoiceChatError) in try channel.setProximity(settings) }
    }
}

@_cdecl("vc_match_set_channel_volume")
public func cMatchSetChannelVolume(_ match: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ volume: Float)
    -> vc_result
{
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let channel = try handle.openedChannel(text(name, "name", maximumBytes: RelayMessage.maximumChannelNameBytes))
        try hand(.channelVolume(volume, channel: channel.number, match: handle.match.matchID), to: handle.owner)
    }
}

@_cdecl("vc_match_set_player_muted")
public func cMatchSetPlayerMuted(
    _ match: OpaquePointer?, _ channelName: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?, _ muted: Int32
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let channel = try handle.openedChannel(
            text(channelName, "channel", maximumBytes: RelayMessage.maximumChannelNameBytes))
        let name = try knownPlayer(player, in: handle)
        try hand(
            .playerMuted(muted != 0, player: name, channel: channel.number, match: handle.match.matchID),
            to: handle.owner)
    }
}

/// A player name the match knows of, or a refusal naming it.
private func knownPlayer(_ player: UnsafePointer<CChar>?, in match: MatchHandle) throws(CallFailure) -> ParticipantID {
    let name = try participantID(player, "player")
    guard match.roster.contains(name) else {
        throw CallFailure(VC_ERROR_NOT_FOUND, "\"\(name)\" is not a player of match \"\(match.match.matchID)\" (yet)")
    }
    return name
}

/// Three coordinates from a C array (the engine checks them as it takes the order).
private func position(_ values: UnsafePointer<Float>?, _ argument: String) throws(CallFailure) -> VoicePosition {
    guard let values else { throw .invalidArgument("\(argument) is NULL; pass three floats (x, y, z)") }
    return VoicePosition(x: values[0], y: values[1], z: values[2])
}

@_cdecl("vc_match_set_position")
public func cMatchSetPosition(_ match: OpaquePointer?, _ place: UnsafePointer<Float>?, _ right: UnsafePointer<Float>?)
    -> vc_result
{
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let at = try position(place, "position")
        let facing = right == nil ? nil : try position(right, "right")
        try hand(.position(at, right: facing, match: handle.match.matchID), to: handle.owner)
    }
}

@_cdecl("vc_match_set_player_position")
public func cMatchSetPlayerPosition(
    _ match: OpaquePointer?, _ player: UnsafePointer<CChar>?, _ place: UnsafePointer<Float>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let name = try knownPlayer(player, in: handle)
        let at = try position(place, "position")
        try hand(.playerPosition(at, player: name, match: handle.match.matchID), to: handle.owner)
    }
}

@_cdecl("vc_match_player_state")
public func cMatchPlayerState(
    _ match: OpaquePointer?, _ channel: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?,
    _ state: UnsafeMutablePointer<vc_player_state>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let channelName = try text(channel, "channel", maximumBytes: RelayMessage.maximumChannelNameBytes)
        let name = try knownPlayer(player, in: handle)
        guard let state else { throw .invalidArgument("state is NULL; pass where to put the state") }
        state.pointee = (handle.roster.state(of: name, in: channelName) ?? .connecting).cValue
    }
}

@_cdecl("vc_match_player_speaking")
public func cMatchPlayerSpeaking(
    _ match: OpaquePointer?, _ channel: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?,
    _ speaking: UnsafeMutablePointer<Int32>?, _ level: UnsafeMutablePointer<Float>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let channelName = try text(channel, "channel", maximumBytes: RelayMessage.maximumChannelNameBytes)
        let name = try knownPlayer(player, in: handle)
        guard speaking != nil || level != nil else {
            throw .invalidArgument("speaking and level_dbfs are both NULL; pass where to put one")
        }
        let matchID = handle.match.matchID
        guard let stream = handle.owner.readSnapshot().stream(of: name, in: matchID, channel: channelName)
        else {
            throw CallFailure(VC_ERROR_NOT_FOUND, "nothing has come from \"\(name)\" in channel \"\(channelName)\" yet")
        }
        speaking?.pointee = stream.isSpeaking ? 1 : 0
        level?.pointee = stream.levelDBFS
    }
}

@_cdecl("vc_match_send_data")
public func cMatchSendData(
    _ match: OpaquePointer?, _ players: UnsafePointer<UnsafePointer<CChar>?>?, _ playerCount: Int,
    _ data: UnsafePointer<UInt8>?, _ length: Int, _ reliable: Int32
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try matches.object(match, "match")
        let names = try playerNames(players, playerCount)
        let bytes = try received(data, length, maximum: 1 << 20)
        try engineCall { () throws(VoiceChatError) in
            try handle.match.send(bytes, to: names.isEmpty ? nil : names, mode: reliable != 0 ? .reliable : .unreliable)
        }
    }
}
