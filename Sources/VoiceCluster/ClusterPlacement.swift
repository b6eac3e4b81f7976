import Logging
import Synchronization
import VoiceRelay

/// Where each match lives in the cluster, kept in etcd: `/voicechat/matches/M` names the match's
/// home node and `/voicechat/homes/NODE/M` counts it for that node, both under the home's lease,
/// so that a home that dies loses its claims with it. A claim is made in a transaction that
/// creates it only if absent, so two relays placing the same match at once agree on one home.
///
/// A new match goes to the live node, not draining, with the fewest claims (then the fewest
/// players; then at random). A claim on a node whose record stopped changing (`suspectAfter`) is
/// taken over before its lease lapses: that node's players are already rejoining elsewhere.
public final class ClusterPlacement: RelayPlacement {
    private let configuration: ClusterConfiguration
    private let view: ClusterView
    private let etcd: EtcdClient
    private let logger: Logger

    public init(configuration: ClusterConfiguration, view: ClusterView, logger: Logger, etcd: EtcdClient? = nil) {
        self.configuration = configuration
        self.view = view
        // Each attempt brief: a join waits for the answer, and its client retries anyway.
        self.etcd = etcd ?? EtcdClient(endpoints: configuration.endpoints, timeout: .milliseconds(400))
        self.logger = logger
    }

    public func place(match: String) async -> RelayPlacementDecision {
        do throws(EtcdError) {
            // A claim made or taken over by another relay at the same moment is read again.
            for _ in 0..<3 {
                if let existing = try await etcd.get(configuration.matchKey(match)) {
                    let home = String(decoding: existing.value, as: UTF8.self)
                    if home == configuration.node {
                        return view.isDraining ? await moveAway(match: match) : .here
                    }
                    if let node = live(excludingDraining: false).first(where: { $0.record.node == home }) {
                        return .elsewhere(node: home, address: node.record.advertise)
                    }
                    let unchanged = EtcdClient.Condition.modRevision(existing.key, equals: existing.modRevision)
                    if let decision = try await claim(match, replacing: unchanged) {
                        logger.notice(
                            "took over a match whose home stopped",
                            metadata: ["match": "\(match)", "home": "\(home)", "now": "\(decision)"])
                        return decision
                    }
                } else if let decision = try await claim(match, replacing: .absent(configuration.matchKey(match))) {
                    logger.info("placed a match", metadata: ["match": "\(match)", "home": "\(decision)"])
                    return decision
                }
            }
            return .unavailable(reason: "the match's home changed three times while placing it")
        } catch {
            return .unavailable(reason: "etcd: \(error)")
        }
    }

    public func moveAway(match: String) async -> RelayPlacementDecision {
        do throws(EtcdError) {
            let decision = try await claim(
                match, replacing: .value(configuration.matchKey(match), equals: Array(configuration.node.utf8)),
                excludingSelf: true)
            if let decision { return decision }
            // The claim is not (or no longer) this node's: wherever it is, that is where players go.
            return await place(match: match)
        } catch {
            return .unavailable(reason: "etcd: \(error)")
        }
    }

    public func release(match: String) async {
        let key = configuration.matchKey(match)
        do throws(EtcdError) {
            _ = try await etcd.transaction(
                if: [.value(key, equals: Array(configuration.node.utf8))],
                then: [.delete(key), .delete(configuration.homesPrefix(configuration.node) + match)])
        } catch {
            // The claim lapses with the node's lease anyway; until then joins are sent here and
            // place the match again.
            logger.notice("could not release a match", metadata: ["match": "\(match)", "reason": "\(error)"])
        }
    }

    public func setDraining(_ draining: Bool) async { view.isDraining = draining }

    /// Claims again, under this node's new lease, a match it held when its old lease lapsed (its
    /// claims went with it): `.here` if nobody took it meanwhile, else where it lives now.
    public func reclaim(match: String) async -> RelayPlacementDecision {
        guard let lease = view.lease else { return .unavailable(reason: "this relay has no lease yet") }
        let key = configuration.matchKey(match)
        do throws(EtcdError) {
            let claimed = try await etcd.transaction(
                if: [.absent(key)],
                then: [
                    .put(key, Array(configuration.node.utf8), lease: lease),
                    .put(configuration.homesPrefix(configuration.node) + match, [], lease: lease),
                ])
            if claimed.succeeded { return .here }
        } catch {
            return .unavailable(reason: "etcd: \(error)")
        }
        return await place(match: match)
    }

    /// Claims `match` for the least loaded node if `condition` holds (nobody has it, or the
    /// claim is as read); nil when it did not hold. Throws when no node can take it.
    private func claim(
        _ match: String, replacing condition: EtcdClient.Condition, excludingSelf: Bool = false
    ) async throws(EtcdError) -> RelayPlacementDecision? {
        guard let home = try await leastLoaded(excludingSelf: excludingSelf) else {
            throw .unreachable(endpoints: [], reason: "no live relay takes new matches")
        }
        let key = configuration.matchKey(match)
        var operations: [EtcdClient.Operation] = [
            .put(key, Array(home.record.node.utf8), lease: home.lease),
            .put(configuration.homesPrefix(home.record.node) + match, [], lease: home.lease),
        ]
        if excludingSelf { operations.append(.delete(configuration.homesPrefix(configuration.node) + match)) }
        guard try await etcd.transaction(if: [condition], then: operations).succeeded else { return nil }
        return home.record.node == configuration.node
            ? .here : .elsewhere(node: home.record.node, address: home.record.advertise)
    }

    /// The live node, not draining, with the fewest claims, then the fewest players.
    private func leastLoaded(excludingSelf: Bool) async throws(EtcdError) -> ClusterView.Node? {
        var candidates = live(excludingDraining: true)
        if excludingSelf { candidates.removeAll { $0.record.node == configuration.node } }
        var best: (node: ClusterView.Node, claims: Int)?
        for node in candidates.shuffled() {
            let claims = try await etcd.count(prefix: configuration.homesPrefix(node.record.node))
            if let current = best,
                (current.claims, current.node.record.participants) <= (claims, node.record.participants)
            {
                continue
            }
            best = (node, claims)
        }
        return best?.node
    }

    /// The nodes heard from lately, this one with its current lease and draining state.
    private func live(excludingDraining: Bool) -> [ClusterView.Node] {
        let (lease, isDraining) = (view.lease, view.isDraining)
        return view.liveNodes(freshness: configuration.suspectAfter).compactMap { node in
            var node = node
            if node.record.node == configuration.node {
                guard let lease else { return nil }
                node.lease = lease
                node.record.draining = isDraining
            }
            return excludingDraining && node.record.draining ? nil : node
        }
    }
}
