import VoiceCore
import VoiceWire

/// Positional channels: who is in range of whom. Ranges change only when a player moves, sets
/// its range, or leaves, so the forwarding path only looks up a set.
extension RelayState {
    /// A position a member reported. It may place only itself, no more often than its limit,
    /// and not once the game server has placed it.
    func reportedPosition(_ position: VoicePosition, of mediaID: MediaID, by member: RelayMember, now: UInt64) {
        guard mediaID == member.mediaID else {
            logger.debug(
                "refused a position for another player",
                metadata: ["match": "\(member.match.id)", "participant": "\(member.participant)"])
            return drop(.foreignPosition, member: member)
        }
        guard !member.isPlacedByServer else { return drop(.positionHeldByServer, member: member) }
        guard member.positionBucket.take(1, now: now) else { return drop(.rateLimited, member: member) }
        place(member, at: position)
    }

    /// The game server's order: the member stands at `position` whatever it reports itself; nil
    /// hands its position back to its own reports (it keeps the last one until it sends another).
    func placeByServer(_ member: RelayMember, at position: VoicePosition?) {
        logger.info(
            position == nil ? "position handed back to the player" : "placed by the game server",
            metadata: [
                "match": "\(member.match.id)", "participant": "\(member.participant)",
                "position": "\(position.map { "(\($0.x), \($0.y), \($0.z))" } ?? "-")",
            ])
        member.isPlacedByServer = position != nil
        if let position { place(member, at: position) }
    }

    /// Moves `member` and brings every hearing in its match that involves it up to date. Whoever
    /// hears it positionally, or just stopped, is told where it now stands, and `member` where
    /// each player it has just come to hear stands, so that their engines place each other without
    /// the game telling every player of every other; nobody is told of players out of its range,
    /// so the messages grow with the players in range, not with the match.
    func place(_ member: RelayMember, at position: VoicePosition) {
        member.position = position
        // Everyone told of this move gets the one message, serialized once.
        positionRecipients.removeAll(keepingCapacity: true)
        for other in member.match.members where other !== member {
            updateHearings(between: member, at: position, and: other)
        }
        // A player of another relay hears by its own relay's record; one here hears it by this one's.
        if member.peer == nil, !member.hearings.isEmpty {
            for other in member.match.remote { updateHearings(between: member, at: position, and: other) }
        }
        send(.position(mediaID: member.mediaID, position), to: positionRecipients)
        describeToPeers(member)
    }

    /// Brings whether `other` hears `member` (now at `position`), and whether `member` hears
    /// `other`, up to date; notes in `positionRecipients` whether `other` is to be told of the move.
    private func updateHearings(between member: RelayMember, at position: VoicePosition, and other: RelayMember) {
        let distanceSquared = other.position.map { position.distanceSquared(to: $0) }
        if !other.hearings.isEmpty {
            let heard = other.hears(member.mediaID)
            other.updateHearing(of: member.mediaID, distanceSquared: distanceSquared)
            if heard || other.hears(member.mediaID), let source = other.preferredSource {
                positionRecipients.append(source)
            }
        }
        if !member.hearings.isEmpty {
            let heard = member.hears(other.mediaID)
            member.updateHearing(of: other.mediaID, distanceSquared: distanceSquared)
            if !heard, member.hears(other.mediaID), let there = other.position {
                tell(member, .position(mediaID: other.mediaID, there))
            }
        }
    }

    /// Sends `message` to `member` once, over its `preferredSource`.
    func tell(_ member: RelayMember, _ message: RelayMessage) {
        if let source = member.preferredSource { send(message, to: source) }
    }

    /// The member hears `channel` within `range` from now on (0: the whole channel again).
    func setHearingRange(_ range: Float, on channel: ChannelNumber, of member: RelayMember, source: RelaySource) {
        let previous = member.hearings.firstIndex { $0.channel == channel }
        guard range > 0 else {
            if let previous { member.hearings.remove(at: previous) }
            return describeToPeers(member)
        }
        if previous == nil, member.hearings.count > RelayJoin.maximumChannels {
            return send(.refused(.tooManyChannels), to: source)
        }
        // Those heard so far keep the margin; the rest must come within the new range.
        let heard = previous.map { member.hearings[$0].audible } ?? []
        var hearing = RelayHearing(channel: channel, range: HearingRange(range: range), audible: [])
        let others = member.match.members + member.match.remote
        if let position = member.position {
            for other in others where other !== member {
                guard let there = other.position else { continue }
                let audible = hearing.range.isAudible(
                    distanceSquared: position.distanceSquared(to: there), wasAudible: heard.contains(other.mediaID))
                if audible { hearing.audible.insert(other.mediaID) }
            }
        }
        // The member learns where each player it has just come to hear stands.
        for other in others where other !== member && !member.hears(other.mediaID) {
            if hearing.audible.contains(other.mediaID), let there = other.position {
                tell(member, .position(mediaID: other.mediaID, there))
            }
        }
        if let previous {
            member.hearings[previous] = hearing
        } else {
            member.hearings.append(hearing)
        }
        describeToPeers(member)
    }

    /// A member left: nobody hears it in range any more, so that a player who joins again under
    /// the same media ID is heard only once its new position is known.
    func forgetHearing(of member: RelayMember) {
        for other in member.match.members where !other.hearings.isEmpty {
            other.updateHearing(of: member.mediaID, distanceSquared: nil)
        }
    }
}
