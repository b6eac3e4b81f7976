import Logging

/// A match whose part here is full takes its next players on another relay of the cluster: the
/// joins wait while the cluster says where (`RelayAction.spill`), then are redirected there, and
/// the two relays link up (`RelayState+Span`). Same thread contract as `RelayState`.
extension RelayState {
    /// Whether the join that `source` sent for `match`, whose part here is full, waits for the
    /// cluster to say where its players go now (in a cluster that spans matches).
    func spillsOver(_ match: String, _ join: RelayPlacementLedger.WaitingJoin, from source: RelaySource) -> Bool {
        guard placement.isClustered, spans.identity != nil, !placement.isDraining else { return false }
        if placement.waiting[match] == nil { actions.append(.spill(match: match)) }
        placement.waiting[match, default: [:]][source] = join
        return true
    }

    /// The cluster's answer to a spill: the joins that waited go to the relay that takes the
    /// match's next players, which this one links with, or are refused.
    func spilled(_ match: String, _ decision: RelayPlacementDecision, now: UInt64) {
        gate.latestNow = max(gate.latestNow, now)
        guard let waiting = placement.waiting.removeValue(forKey: match) else { return }
        let participants = Set(waiting.values.map(\.participant)).sorted()
        switch decision {
        case .elsewhere(let node, let address):
            spans.full.insert(match)
            logger.info(
                "the match is full here; its next players join another relay",
                metadata: [
                    "match": "\(match)", "node": "\(node)", "address": "\(address)",
                    "participants": "\(participants)",
                ])
            link(match, to: node, at: address, now: now)
            send(.redirect(address: address), to: Array(waiting.keys))
        case .full:
            logger.notice(
                "refused joins: every relay holds as many of the match's players as it may",
                metadata: ["match": "\(match)", "participants": "\(participants)"])
            for (source, join) in waiting { refuse(.matchFull, to: source, participant: join.participant) }
        case .here, .part, .unavailable:
            logger.warning(
                "could not spill a full match; its joins are refused until the cluster answers",
                metadata: ["match": "\(match)", "reason": "\(decision)", "participants": "\(participants)"])
            for (source, join) in waiting { refuse(.clusterUnavailable, to: source, participant: join.participant) }
        }
    }

    /// A player left `match` here: a part that was full takes players again.
    func partMayHaveRoom(_ match: String) {
        guard spans.full.contains(match),
            (roster.matches[match]?.members.count ?? 0) < configuration.limits.maximumMembersPerMatch
        else { return }
        spans.full.remove(match)
        actions.append(.partHasRoom(match: match))
    }
}
