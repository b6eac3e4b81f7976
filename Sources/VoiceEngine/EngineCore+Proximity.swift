import VoiceCore

/// Positional channels: where the players stand, how loud each is heard for its distance, and
/// whom a direct path sends voice to. Positions change on the game's calls, not per frame, so
/// all of this is worked out then; a frame only reads what it left.
extension EngineCore {
    /// The relay hears this participant's position at most this often; the latest one wins.
    static let relayPositionInterval = MediaTime.milliseconds(33)

    func setProximity(_ settings: ProximitySettings?, channel number: UInt16, match: String) throws(VoiceChatError) {
        let session = try matchSession(match)
        guard let channel = session.channels[number] else { throw .outOfRange("unknown channel") }
        channel.proximity = settings
        updateProximity(in: session)
        mirrorToRelay(session)
    }

    /// Places `player` (nil: this participant) at `position` in `match`.
    func setPosition(_ position: VoicePosition, of player: ParticipantID?, match: String, now: MediaTime)
        throws(VoiceChatError)
    {
        guard position.isFinite else { throw .outOfRange("position \(position) is not three finite numbers") }
        let session = try matchSession(match)
        if let player, player != participant {
            guard let peer = session.peers[player] else {
                throw .invalidPlayers("\"\(player)\" is not a player of the match")
            }
            peer.position = position
        } else {
            session.ownPosition = position
            session.isRelayPositionPending = true
            sendPositionToRelay(session, now: now)
        }
        updateProximity(in: session)
    }

    /// Tells the relay where this participant stands, unless it did so less than
    /// `relayPositionInterval` ago; the frame after that interval sends the latest.
    func sendPositionToRelay(_ session: Session, now: MediaTime) {
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
    func updateProximity(in session: Session) {
        for peer in session.peers.values {
            for channel in session.channels.values {
                updateProximity(of: peer, on: channel, in: session)
            }
        }
    }

    /// The level `peer` is mixed at on `channel`, and whether a direct path sends it voice there.
    /// A player whose position (or this participant's) is unknown is out of range, as at the relay.
    func updateProximity(of peer: RemotePeer, on channel: LocalChannel, in session: Session) {
        guard let proximity = channel.proximity else {
            peer.inRangeChannels.remove(channel.number)
            mixer.setDistanceGain(nil, sender: peer.mediaID.rawValue, channel: channel.mixerChannel)
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
            }
        }
        let gain = distanceSquared.map { proximity.gain(atDistance: $0.squareRoot()) } ?? 0
        mixer.setDistanceGain(gain, sender: peer.mediaID.rawValue, channel: channel.mixerChannel)
    }
}
