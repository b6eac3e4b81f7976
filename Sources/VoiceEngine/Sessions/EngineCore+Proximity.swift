import VoiceCore
import VoiceMedia
import VoiceWire

/// Positional channels: where the players stand, how loud each is heard for its distance, and
/// whom a direct path sends voice to. Positions change on the game's calls, not per frame, so
/// all of this is worked out then; a frame only reads what it left.
extension EngineCore {
    /// The relay hears this participant's position at most this often; the latest one wins.
    static let relayPositionInterval = MediaTime.milliseconds(33)

    func setProximity(_ settings: ProximitySettings?, channel number: ChannelNumber, match: String)
        throws(VoiceChatError)
    {
        let session = try joinedMatch(match)
        guard let channel = session.channels[number] else { throw .outOfRange("unknown channel") }
        channel.proximity = settings
        updateProximity(in: session)
        mirrorToRelay(session)
    }

    /// `right` as a unit direction, once `position` and `right` are what a placement may be.
    static func checkedPlacement(_ position: VoicePosition, right: VoicePosition?) throws(VoiceChatError)
        -> VoicePosition?
    {
        guard position.isFinite else { throw .outOfRange("position \(position) is not three finite numbers") }
        return try right.map { right throws(VoiceChatError) -> VoicePosition in
            let length = right.distance(to: .origin)
            guard right.isFinite, length > 0, length.isFinite else {
                throw .outOfRange("the right direction \(right) is not a direction (three finite numbers, not all 0)")
            }
            return VoicePosition(x: right.x / length, y: right.y / length, z: right.z / length)
        }
    }

    /// Places `player` (nil: this participant, facing so that `right` is to its right) at
    /// `position` in `match`.
    func setPosition(
        _ position: VoicePosition, right: VoicePosition? = nil, of player: ParticipantID?, match: String,
        now: MediaTime
    ) throws(VoiceChatError) {
        let unitRight = try Self.checkedPlacement(position, right: right)
        let session = try joinedMatch(match)
        if let unitRight { session.ownRight = unitRight }
        if let player, player != participant {
            guard let peer = session.peers[player] else {
                throw .invalidPlayers("\"\(player)\" is not a player of the match")
            }
            peer.position = position
            peer.isPlacedByGame = true
        } else {
            session.ownPosition = position
            session.isRelayPositionPending = true
            sendPositionToRelay(session, now: now)
        }
        updateProximity(in: session)
    }

    /// Where the relay says another player stands: taken unless the game placed that player itself
    /// (the game is the authority on its own world).
    func placeFromRelay(mediaID: MediaID, at position: VoicePosition, in session: MatchSession) {
        guard position.isFinite,
            let peer = session.peers.values.first(where: { $0.mediaID == mediaID }), !peer.isPlacedByGame
        else { return }
        peer.position = position
        for channel in session.channels.values { updateProximity(of: peer, on: channel, in: session) }
    }

    /// Tells the relay where this participant stands, unless it did so less than
    /// `relayPositionInterval` ago; the frame after that interval sends the latest.
    func sendPositionToRelay(_ session: MatchSession, now: MediaTime) {
        guard session.isRelayPositionPending, let position = session.ownPosition else { return }
        guard let relay = session.relay else {
            session.isRelayPositionPending = false
            return
        }
        guard now - session.relayPositionSentAt >= Self.relayPositionInterval else { return }
        session.isRelayPositionPending = false
        session.relayPositionSentAt = now
        outbox.append(.relayPosition(position, link: relay.link))
    }

    /// Brings every peer's level and range on every positional channel of `session` up to date.
    func updateProximity(in session: MatchSession) {
        for peer in session.peers.values {
            for channel in session.channels.values {
                updateProximity(of: peer, on: channel, in: session)
            }
        }
    }

    /// Where `peer` is heard on `channel` (its level, and its side on a stereo speaker), and
    /// whether a direct path sends it voice there. A player whose position (or this
    /// participant's) is unknown is out of range, as at the relay.
    func updateProximity(of peer: RemotePeer, on channel: LocalChannel, in session: MatchSession) {
        guard let proximity = channel.proximity else {
            peer.inRangeChannels.remove(channel.number)
            mixer.setPlacement(nil, sender: peer.mediaID, channel: channel.mixerChannel)
            return
        }
        var distanceSquared: Float?
        if let own = session.ownPosition, let there = peer.position { distanceSquared = own.distanceSquared(to: there) }
        let wasInRange = peer.inRangeChannels.contains(channel.number)
        let isInRange =
            distanceSquared.map { proximity.hearingRange.isAudible(distanceSquared: $0, wasAudible: wasInRange) }
            ?? false
        if isInRange != wasInRange {
            if isInRange {
                peer.inRangeChannels.insert(channel.number)
            } else {
                peer.inRangeChannels.remove(channel.number)
                session.incoming.streams[StreamKey(sender: peer.mediaID, channel: channel.number)]?.stream
                    .senderWentOutOfRange()
            }
        }
        let gain = distanceSquared.map { proximity.gain(atDistance: $0.squareRoot()) } ?? 0
        mixer.setPlacement(
            MixerPlacement(level: gain, pan: pan(of: peer, in: session)), sender: peer.mediaID,
            channel: channel.mixerChannel)
    }

    /// How far to this participant's right `peer` stands: the sine of its bearing, −1 (left)
    /// to 1 (right); 0 without an orientation, or on top of it.
    private func pan(of peer: RemotePeer, in session: MatchSession) -> Float {
        guard let own = session.ownPosition, let there = peer.position, let right = session.ownRight else { return 0 }
        let distance = own.distance(to: there)
        guard distance > 0 else { return 0 }
        let toward = (there.x - own.x) * right.x + (there.y - own.y) * right.y + (there.z - own.z) * right.z
        return toward / distance
    }
}
