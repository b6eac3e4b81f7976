import VoiceWire

/// Matches in a cluster of relays: a join for a match this relay does not hold waits for the
/// cluster to say where the match lives (`RelayAction.place`), then goes on here or is redirected
/// to the match's home; a match whose last member leaves is released; a draining relay asks a new
/// home for each of its matches and tells their players to move there. Same thread contract as
/// `RelayState`.
extension RelayState {
    /// Whether the join of `participant` from `source` for `match` was taken care of here (held
    /// for the cluster's answer, or redirected); false when it goes on at once.
    func awaitsPlacement(
        of match: String, _ join: RelayPlacementLedger.WaitingJoin, from source: RelaySource
    ) -> Bool {
        guard placement.isClustered else { return false }
        if let address = placement.moving[match] {
            // A member repeating itself stays until it has joined the new home.
            if member(match: match, participant: join.participant) != nil
                || signallingMatches[match]?[join.participant] != nil
            {
                return false
            }
            send(.redirect(address: address), to: source)
            return true
        }
        if roster.matches[match] != nil || signallingMatches[match] != nil || placement.home.contains(match)
            || spans.parts.contains(match)
        {
            return false
        }
        if spans.links[match] != nil, !placement.isDraining {
            // A relay whose part of the match was full gave this one the next players.
            spans.parts.insert(match)
            logger.info("took part of a match that spans relays", metadata: ["match": "\(match)"])
            return false
        }
        if placement.waiting[match] == nil { actions.append(.place(match: match)) }
        placement.waiting[match, default: [:]][source] = join
        return true
    }

    /// The cluster's answer for `match`: the joins that waited go on here, go elsewhere, or are
    /// refused as the cluster is unavailable (their clients retry).
    func placed(_ match: String, _ decision: RelayPlacementDecision, now: UInt64) {
        guard let waiting = placement.waiting.removeValue(forKey: match) else { return }
        let participants = Set(waiting.values.map(\.participant)).sorted()
        switch decision {
        case .here:
            if placement.home.insert(match).inserted {
                logger.info("placed a match here", metadata: ["match": "\(match)", "participants": "\(participants)"])
            }
            admit(waiting, now: now)
        case .part(let peers):
            if spans.parts.insert(match).inserted {
                logger.info(
                    "took part of a match that spans relays",
                    metadata: ["match": "\(match)", "peers": "\(peers.map(\.node))", "participants": "\(participants)"])
            }
            for peer in peers { link(match, to: peer.node, at: peer.address, now: now) }
            admit(waiting, now: now)
        case .elsewhere(let node, let address):
            logger.info(
                "redirected joins to the match's home",
                metadata: [
                    "match": "\(match)", "node": "\(node)", "address": "\(address)",
                    "participants": "\(participants)",
                ])
            send(.redirect(address: address), to: Array(waiting.keys))
        case .full, .unavailable:
            let reason = "\(decision)"
            logger.warning(
                "could not place a match; its joins are refused until the cluster answers",
                metadata: ["match": "\(match)", "reason": "\(reason)", "participants": "\(participants)"])
            for (source, join) in waiting { refuse(.clusterUnavailable, to: source, participant: join.participant) }
        }
    }

    /// Lets the joins that waited for the cluster's answer go on here.
    private func admit(_ waiting: [RelaySource: RelayPlacementLedger.WaitingJoin], now: UInt64) {
        for (source, join) in waiting where gate.isOpen(source) {
            switch join {
            case .media(let media): self.join(media, from: source, now: now)
            case .signalling(let token, let participant):
                signallingJoin(token: token, participant: participant, from: source, now: now)
            }
        }
    }

    /// Forgets a match that no longer has anyone here, media or signalling, and releases its
    /// claim if this relay is its home.
    func releaseIfEmpty(_ match: String) {
        guard placement.isClustered else { return }
        if let held = roster.matches[match] { return letGoIfEveryoneMoved(held) }
        guard signallingMatches[match] == nil else { return }
        if placement.moving.removeValue(forKey: match) != nil {
            logger.info("a moved match has left", metadata: ["match": "\(match)"])
        }
        dropLinks(match)
        let wasHome = placement.home.remove(match) != nil
        let wasPart = spans.parts.remove(match) != nil
        guard wasHome || wasPart else { return }
        logger.info("released a match: nobody is left in it", metadata: ["match": "\(match)"])
        actions.append(.release(match: match))
    }

    /// Every match with a member or a signalling attachment here.
    var heldMatches: Set<String> { Set(roster.matches.keys).union(signallingMatches.keys) }

    /// Takes no new matches from now on, and asks a new home for each match held here.
    func beginDrain() {
        if !placement.isDraining {
            placement.isDraining = true
            logger.notice(
                "draining: taking no new matches, moving every match", metadata: ["matches": "\(heldMatches.count)"])
        }
        askMoves()
    }

    /// Asks a new home for each held match not yet moving nor asked for.
    private func askMoves() {
        for match in heldMatches.sorted()
        where placement.moving[match] == nil && !placement.movesAsked.contains(match) {
            placement.movesAsked.insert(match)
            actions.append(.moveAway(match: match))
        }
    }

    /// The cluster's answer to a move: the match's players are told to join its new home (they
    /// leave here once they have), or the move is asked again at the next sweep.
    func movedAway(_ match: String, _ decision: RelayPlacementDecision) {
        placement.movesAsked.remove(match)
        switch decision {
        case .elsewhere(let node, let address):
            placement.home.remove(match)
            placement.moving[match] = address
            logger.info(
                "moving a match",
                metadata: [
                    "match": "\(match)", "node": "\(node)", "address": "\(address)",
                    "participants": "\(roster.matches[match]?.members.map(\.participant) ?? [])",
                ])
            tellMoving(match, to: address)
            // Nobody may be left by the time the answer came.
            releaseIfEmpty(match)
        case .here, .part, .full, .unavailable:
            logger.warning(
                "could not move a match; it is asked again", metadata: ["match": "\(match)", "reason": "\(decision)"])
        }
    }

    /// A member of a moving match says it has joined the new home. Once every member has, they
    /// all hear each other there: this relay lets them go. Until then it forwards as before, so
    /// that a player still on its way hears, and is heard by, those that arrived.
    func arrived(_ member: RelayMember) {
        guard placement.moving[member.match.id] != nil else { return }
        member.hasMoved = true
        letGoIfEveryoneMoved(member.match)
    }

    /// Lets every member of a moving `match` go, if each has joined the new home.
    private func letGoIfEveryoneMoved(_ match: RelayMatch) {
        // Removing a member comes back here (`releaseIfEmpty`): the loop under way lets go of all.
        guard placement.moving[match.id] != nil, !placement.lettingGo.contains(match.id),
            match.members.allSatisfy(\.hasMoved)
        else { return }
        placement.lettingGo.insert(match.id)
        defer { placement.lettingGo.remove(match.id) }
        for member in match.members {
            notify(member, .kicked(.moved))
            let connection = member.tcpConnection
            remove(member, because: "moved to its match's new home")
            if let connection { actions.append(.close(connection)) }
        }
    }

    /// Tells every member and signalling attachment of `match` that it moves to `address`.
    private func tellMoving(_ match: String, to address: String) {
        for member in roster.matches[match]?.members ?? [] { notify(member, .moving(address: address)) }
        if let signalling = signallingMatches[match] {
            send(.moving(address: address), to: signalling.values.map { .tcp($0.connection) })
        }
    }

    /// While draining, at each sweep: tells the players of a moving match again (a datagram may
    /// have been lost) and asks again the moves that failed.
    func sweepDrain() {
        guard placement.isDraining else { return }
        for (match, address) in placement.moving.sorted(by: { $0.key < $1.key }) { tellMoving(match, to: address) }
        askMoves()
    }

    /// Whether the relay drained: it holds no match any more.
    var hasDrained: Bool { placement.isDraining && roster.matches.isEmpty && signallingMatches.isEmpty }
}
