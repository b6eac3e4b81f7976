import VoiceWire

/// Match signalling through the relay, for clients with no other channel to the other players.
///
/// A participant attaches a TCP connection of its own to a match's signalling with the same token
/// it joins media with. The relay answers with the other attached members, tells every member when
/// one attaches or goes, and forwards each `sendSignal` to its destination's connection as a
/// `signal`. The attachment is kept apart from the participant's media membership: either can come
/// and go without disturbing the other. Same thread contract as `RelayState`.
extension RelayState {
    @inline(__always)
    func signallingMember(for source: RelaySource) -> RelaySignallingMember? {
        guard case .tcp(let connection) = source else { return nil }
        return signallingConnections[connection]
    }

    /// Members attached to signalling, over every match: each has exactly one connection.
    var signallingCount: Int { signallingConnections.count }

    /// Most members a match's signalling holds: the media limit, but no more than a roster lists.
    private var maximumSignallingMembers: Int {
        min(configuration.limits.maximumMembersPerMatch, RelayMessage.maximumRosterEntries + 1)
    }

    func signallingJoin(token text: String, participant: String, from source: RelaySource, now: UInt64) {
        // Signalling needs ordered, reliable delivery, and a connection of its own.
        guard case .tcp(let connection) = source, member(for: source) == nil else {
            return refuse(.wrongConnection, to: source, participant: participant)
        }
        let token: RelayToken
        switch gate.admittedToken(text, participant: participant) {
        case .admitted(let admitted): token = admitted
        case .refused(let reason): return refuse(reason, to: source, participant: participant)
        }
        guard !awaitsPlacement(of: token.match, .signalling(token: text, participant: participant), from: source)
        else { return }
        if let previous = signallingConnections[connection],
            previous.participant != participant || previous.match != token.match
        {
            removeSignalling(previous)
        }
        var roster = signallingMatches[token.match] ?? [:]
        let joining: RelaySignallingMember
        if let existing = roster[participant] {
            // A newer connection of the same participant replaces the old one; for the others
            // nothing changed, so they hear nothing.
            if existing.connection != connection {
                let old = existing.connection
                signallingConnections[old] = nil
                send(.kicked(.replaced), to: .tcp(old))
                actions.append(.close(old))
                existing.connection = connection
            }
            existing.lastHeard = now
            joining = existing
        } else {
            // A roster lists the whole match: with those attached on other relays, it must fit.
            guard signallingRosterCount(of: token.match) <= RelayMessage.maximumRosterEntries else {
                return refuse(.matchFull, to: source, participant: participant)
            }
            guard roster.count < maximumSignallingMembers else {
                if spillsOver(token.match, .signalling(token: text, participant: participant), from: source) { return }
                return refuse(.matchFull, to: source, participant: participant)
            }
            guard signallingCount < configuration.limits.maximumParticipants else {
                if spillsOver(token.match, .signalling(token: text, participant: participant), from: source) { return }
                return refuse(.relayFull, to: source, participant: participant)
            }
            joining = RelaySignallingMember(
                match: token.match, participant: participant, connection: connection,
                limits: configuration.limits, now: now)
            // The others hear of the newcomer before anything it sends can reach them.
            send(.memberJoined(participant), to: roster.values.map { .tcp($0.connection) })
            roster[participant] = joining
            signallingMatches[token.match] = roster
            tellPeers(.signalling([participant]), of: token.match)
        }
        signallingConnections[connection] = joining
        gate.forgetUnjoined(connection)
        signallingJoins &+= 1
        logger.info(
            "joined signalling",
            metadata: ["match": "\(token.match)", "participant": "\(participant)", "from": "\(describe(source))"])
        let elsewhere = spans.remoteSignalling[token.match]?.keys.filter { roster[$0] == nil } ?? []
        send(.signalJoined(members: (roster.keys.filter { $0 != participant } + elsewhere).sorted()), to: source)
    }

    func signallingControl(_ message: RelayMessage, from member: RelaySignallingMember, now: UInt64) {
        member.lastHeard = now
        switch message {
        case .keepalive(let nonce): send(.pong(nonce: nonce), to: .tcp(member.connection))
        case .sendSignal(let destination, let payload): forwardSignal(payload, to: destination, from: member, now: now)
        case .leave:
            removeSignalling(member)
            actions.append(.close(member.connection))
        case .join, .joined, .refused, .startChannel, .stopChannel, .mute, .unmute, .pong, .kicked, .moved,
            .serverMute, .signalJoin, .signalJoined, .memberJoined, .memberLeft, .signal, .position, .hearingRange,
            .channelName, .redirect, .moving:
            drop(.malformed, member: nil)
        }
    }

    private func forwardSignal(
        _ payload: [UInt8], to destination: String, from sender: RelaySignallingMember, now: UInt64
    ) {
        guard payload.count <= configuration.limits.maximumSignalBytes else {
            return drop(.tooLarge, member: nil)
        }
        guard sender.signalBucket.take(1, now: now), sender.byteBucket.take(Double(payload.count), now: now) else {
            return drop(.rateLimited, member: nil)
        }
        guard destination != sender.participant else { return drop(.unknownDestination, member: nil) }
        if signallingMatches[sender.match]?[destination] == nil,
            let node = spans.remoteSignalling[sender.match]?[destination]?.node, let peer = spans.peers[node]
        {
            // Attached to another relay of the cluster: sent there, if it fits a message between relays.
            guard payload.count <= RelayPeerMessage.maximumSignalBytes else { return drop(.tooLarge, member: nil) }
            if sendPeer(
                .signal(from: sender.participant, to: destination, payload: payload), of: sender.match, to: peer)
            {
                counters.signalsForwarded &+= 1
                counters.signalBytesForwarded &+= payload.count
            }
            return
        }
        deliverSignal(payload, from: sender.participant, to: destination, in: sender.match)
    }

    /// Hands a signal to `destination`, attached to `match`'s signalling here.
    func deliverSignal(_ payload: [UInt8], from sender: String, to destination: String, in match: String) {
        guard let recipient = signallingMatches[match]?[destination] else {
            return drop(.unknownDestination, member: nil)
        }
        // Past the connection's write water mark the relay drops rather than queueing without bound.
        guard !isCongested(recipient.connection) else { return drop(.recipientCongested, member: nil) }
        send(.signal(from: sender, payload: payload), to: .tcp(recipient.connection))
        counters.signalsForwarded &+= 1
        counters.signalBytesForwarded &+= payload.count
    }

    /// Detaches a member's signalling and tells the others it left.
    func removeSignalling(_ member: RelaySignallingMember) {
        if signallingConnections[member.connection] === member { signallingConnections[member.connection] = nil }
        guard var roster = signallingMatches[member.match], roster[member.participant] === member else { return }
        logger.info("left signalling", metadata: ["match": "\(member.match)", "participant": "\(member.participant)"])
        roster[member.participant] = nil
        signallingMatches[member.match] = roster.isEmpty ? nil : roster
        send(.memberLeft(member.participant), to: roster.values.map { .tcp($0.connection) })
        tellPeers(.signallingGone([member.participant]), of: member.match)
        releaseIfEmpty(member.match)
    }

    /// Drops signalling connections silent for longer than `timeout` (clients send keepalives).
    func sweepSignalling(now: UInt64, timeout: UInt64) {
        for roster in Array(signallingMatches.values) {
            for member in roster.values where now &- member.lastHeard > timeout {
                removeSignalling(member)
                actions.append(.close(member.connection))
            }
        }
    }

    /// Removes the participant's signalling attachment (the game server kicked it); true if it had one.
    func kickSignalling(match: String, participant: String) -> Bool {
        guard let member = signallingMatches[match]?[participant] else { return false }
        send(.kicked(.admin), to: .tcp(member.connection))
        removeSignalling(member)
        actions.append(.close(member.connection))
        return true
    }

    func shutDownSignalling() {
        for roster in signallingMatches.values {
            for member in roster.values {
                send(.kicked(.shutdown), to: .tcp(member.connection))
                actions.append(.close(member.connection))
            }
        }
        signallingMatches = [:]
        signallingConnections = [:]
    }
}
