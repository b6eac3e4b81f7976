import Logging
import NIOCore
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
///
/// A match larger than a relay takes spans relays: each relay holding part of it is listed under
/// `/voicechat/parts/M/NODE` (under that relay's lease), saying whether its part is full; a full
/// part's next players go to a part with room, else to a relay given a new part (`spill`).
public final class ClusterPlacement: RelayPlacement {
    private let configuration: ClusterConfiguration
    private let view: ClusterView
    private let etcd: EtcdClient
    private let logger: Logger
    /// Homes read lately, by match: players of one match join through several relays at about
    /// the same moment, and each would otherwise ask etcd again.
    private let recentHomes = Mutex<[String: (node: String, address: String, readAt: ContinuousClock.Instant)]>([:])
    /// How long a home read is trusted while its node stays live.
    private static let recentHomeLifetime: Duration = .seconds(2)
    /// Relays' advertised names as looked up, and when; looked up again after `lookupLifetime`.
    private let lookedUp = Mutex<[String: (address: String, at: ContinuousClock.Instant)]>([:])
    private static let lookupLifetime: Duration = .seconds(30)

    public init(configuration: ClusterConfiguration, view: ClusterView, logger: Logger, etcd: EtcdClient? = nil) {
        self.configuration = configuration
        self.view = view
        // Each attempt brief: a join waits for the answer, and its client retries anyway.
        self.etcd = etcd ?? EtcdClient(endpoints: configuration.endpoints, timeout: .milliseconds(400))
        self.logger = logger
    }

    public func place(match: String) async -> RelayPlacementDecision {
        if let recent = recentHome(of: match) { return recent }
        do throws(EtcdError) {
            try await readNodesIfStale()
            // A claim made or taken over by another relay at the same moment is read again.
            let (claimKey, partKey) = (configuration.matchKey(match), configuration.partKey(match, configuration.node))
            let homesPrefix = configuration.prefix + "homes/"
            for _ in 0..<3 {
                // The claim, whether this relay was given part of the match, and every relay's claims
                // (to place a match nobody holds), in one round trip.
                let read = try await etcd.transaction(
                    if: [], then: [.get(claimKey), .get(partKey), .range(prefix: homesPrefix)]
                ).found
                let homes = read.filter { $0.key.hasPrefix(homesPrefix) }
                if let existing = read.first(where: { $0.key == claimKey }) {
                    let home = String(decoding: existing.value, as: UTF8.self)
                    if home == configuration.node {
                        return view.isDraining ? await moveAway(match: match) : .here
                    }
                    if let node = live(excludingDraining: false).first(where: { $0.record.node == home }) {
                        // A relay given part of a match that spans relays takes its players.
                        if read.contains(where: { $0.key == partKey }) {
                            let parts = Set(try await holders(of: match).keys).union([home])
                            return .part(peers: parts.sorted().compactMap(peer))
                        }
                        // A draining home is about to move the match: not worth remembering.
                        if !node.record.draining { remember(match, home: home, address: node.record.advertise) }
                        return .elsewhere(node: home, address: node.record.advertise)
                    }
                    let unchanged = EtcdClient.Condition.modRevision(existing.key, equals: existing.modRevision)
                    if let decision = try await claim(match, replacing: unchanged, homes: homes) {
                        if case .unavailable = decision { return decision }
                        logger.notice(
                            "took over a match whose home stopped",
                            metadata: ["match": "\(match)", "home": "\(home)", "now": "\(decision)"])
                        return decision
                    }
                } else if let decision = try await claim(match, replacing: .absent(claimKey), homes: homes) {
                    if case .unavailable = decision { return decision }
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
            try await readNodesIfStale()
            // A part of a match that spans relays moves to another part, or a new one.
            let ownPart = configuration.partKey(match, configuration.node)
            if try await etcd.get(ownPart) != nil {
                let decision = await spill(match: match)
                if case .elsewhere = decision {
                    _ = try await etcd.transaction(if: [], then: [.delete(ownPart)])
                }
                return decision
            }
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
            _ = try await etcd.transaction(if: [], then: [.delete(configuration.partKey(match, configuration.node))])
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

    public func spill(match: String) async -> RelayPlacementDecision {
        guard let lease = view.lease else { return .unavailable(reason: "this relay has no lease yet") }
        let ownPart = configuration.partKey(match, configuration.node)
        do throws(EtcdError) {
            try await readNodesIfStale()
            // Another relay may give a relay part of the match at the same moment: read again.
            for _ in 0..<3 {
                let holders = try await holders(of: match)
                let others = live(excludingDraining: true).filter { $0.record.node != configuration.node }
                    .sorted { ($0.record.participants, $0.record.node) < ($1.record.participants, $1.record.node) }
                // A part with room first, then a relay that holds none of the match yet.
                if let open = others.first(where: { holders[$0.record.node] == false }) {
                    try await etcd.put(ownPart, Self.full, lease: lease)
                    return .elsewhere(node: open.record.node, address: open.record.advertise)
                }
                guard let next = others.first(where: { holders[$0.record.node] == nil }) else {
                    try await etcd.put(ownPart, Self.full, lease: lease)
                    return .full
                }
                let given = try await etcd.transaction(
                    if: [.absent(configuration.partKey(match, next.record.node))],
                    then: [
                        .put(configuration.partKey(match, next.record.node), [], lease: next.lease),
                        .put(ownPart, Self.full, lease: lease),
                    ])
                if given.succeeded {
                    logger.info(
                        "gave another relay part of a match that spans relays",
                        metadata: ["match": "\(match)", "node": "\(next.record.node)"])
                    return .elsewhere(node: next.record.node, address: next.record.advertise)
                }
            }
            return .unavailable(reason: "the match's parts changed three times while spilling it")
        } catch {
            return .unavailable(reason: "etcd: \(error)")
        }
    }

    public func partHasRoom(match: String) async {
        guard let lease = view.lease else { return }
        do throws(EtcdError) {
            try await etcd.put(configuration.partKey(match, configuration.node), [], lease: lease)
        } catch {
            // Until it is said, the relays spill elsewhere; the next spill from here says it again.
            logger.notice("could not say a part has room", metadata: ["match": "\(match)", "reason": "\(error)"])
        }
    }

    /// Every match that spans relays, with the relays holding its parts as this node reaches them
    /// (a relay not live is left out).
    public func spanningMatches() async throws(EtcdError) -> [String: [RelayNode]] {
        var listing: [String: [RelayNode]] = [:]
        for kv in try await etcd.range(prefix: configuration.partsPrefix) {
            guard let (match, node) = Self.part(of: kv.key, prefix: configuration.partsPrefix),
                let address = peer(node)
            else { continue }
            listing[match, default: []].append(address)
        }
        return listing
    }

    /// Whether this relay's part of `match` is listed; lists it (taking players) if not.
    public func listPart(of match: String) async throws(EtcdError) {
        guard let lease = view.lease else { return }
        let key = configuration.partKey(match, configuration.node)
        _ = try await etcd.transaction(if: [.absent(key)], then: [.put(key, [], lease: lease)])
    }

    /// What a part key says: full or not.
    private static let full = Array("full".utf8)

    /// The relays holding part of `match`: whether each is full.
    private func holders(of match: String) async throws(EtcdError) -> [String: Bool] {
        var holders: [String: Bool] = [:]
        for kv in try await etcd.range(prefix: configuration.partsPrefix + match + "/") {
            guard let (part, node) = Self.part(of: kv.key, prefix: configuration.partsPrefix), part == match else {
                continue
            }
            holders[node] = kv.value == Self.full
        }
        return holders
    }

    /// The match and node a part key names (node names hold no "/", match IDs may).
    private static func part(of key: String, prefix: String) -> (match: String, node: String)? {
        guard key.hasPrefix(prefix) else { return nil }
        let rest = key.dropFirst(prefix.count)
        guard let slash = rest.lastIndex(of: "/") else { return nil }
        let node = rest[rest.index(after: slash)...]
        guard !node.isEmpty, slash > rest.startIndex else { return nil }
        return (String(rest[..<slash]), String(node))
    }

    /// A live relay as others reach it: its address with a name looked up (relays send each
    /// other datagrams, and do not look names up on their loops).
    private func peer(_ node: String) -> RelayNode? {
        live(excludingDraining: false).first { $0.record.node == node }.map {
            RelayNode(node: node, address: resolved($0.record.advertise))
        }
    }

    /// `advertise` ("HOST:PORT") with its host an IP address; as it is if it cannot be looked up.
    private func resolved(_ advertise: String) -> String {
        guard let colon = advertise.lastIndex(of: ":"), let port = Int(advertise[advertise.index(after: colon)...])
        else { return advertise }
        let host = String(advertise[..<colon])
        if (try? SocketAddress(ipAddress: host, port: port)) != nil || host.hasPrefix("[") { return advertise }
        let now = ContinuousClock.now
        if let known = lookedUp.withLock({ $0[advertise] }), now - known.at < Self.lookupLifetime {
            return known.address
        }
        guard let address = try? SocketAddress.makeAddressResolvingHost(host, port: port), let ip = address.ipAddress
        else { return advertise }
        let text = address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        lookedUp.withLock { $0[advertise] = (text, now) }
        return text
    }

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

    /// Claims `match` for the least loaded node (by `homes`, every relay's claims as just read, or
    /// as read now) if `condition` holds (nobody has it, or the claim is as read); nil when it did
    /// not hold, `.unavailable` when no node takes it.
    private func claim(
        _ match: String, replacing condition: EtcdClient.Condition, excludingSelf: Bool = false,
        homes: [EtcdClient.KeyValue]? = nil
    ) async throws(EtcdError) -> RelayPlacementDecision? {
        guard let home = try await leastLoaded(excludingSelf: excludingSelf, homes: homes) else {
            return .unavailable(reason: "no live relay of the cluster takes new matches")
        }
        let key = configuration.matchKey(match)
        var operations: [EtcdClient.Operation] = [
            .put(key, Array(home.record.node.utf8), lease: home.lease),
            .put(configuration.homesPrefix(home.record.node) + match, [], lease: home.lease),
        ]
        if excludingSelf { operations.append(.delete(configuration.homesPrefix(configuration.node) + match)) }
        guard try await etcd.transaction(if: [condition], then: operations).succeeded else { return nil }
        guard home.record.node != configuration.node else { return .here }
        remember(match, home: home.record.node, address: home.record.advertise)
        return .elsewhere(node: home.record.node, address: home.record.advertise)
    }

    /// Reads the nodes' records when the view has not been read lately (etcd was just back, and
    /// this node's own reading waits for its turn): placing needs to know who is live.
    private func readNodesIfStale() async throws(EtcdError) {
        let gap = configuration.publishInterval * 2
        guard !view.isRecent(within: gap) else { return }
        view.update(try await etcd.range(prefix: configuration.nodesPrefix), gap: gap)
    }

    /// The home read for `match` lately, if its node is still live.
    private func recentHome(of match: String) -> RelayPlacementDecision? {
        let now = ContinuousClock.now
        guard let recent = recentHomes.withLock({ $0[match] }), now - recent.readAt < Self.recentHomeLifetime,
            live(excludingDraining: false).contains(where: { $0.record.node == recent.node })
        else { return nil }
        return .elsewhere(node: recent.node, address: recent.address)
    }

    private func remember(_ match: String, home: String, address: String) {
        let now = ContinuousClock.now
        recentHomes.withLock { homes in
            // Bounded: what is older than its lifetime goes whenever the table grows large.
            if homes.count >= 4_096 { homes = homes.filter { now - $0.value.readAt < Self.recentHomeLifetime } }
            homes[match] = (home, address, now)
        }
    }

    /// The live node, not draining, with the fewest claims, then the fewest players.
    private func leastLoaded(excludingSelf: Bool, homes: [EtcdClient.KeyValue]?) async throws(EtcdError)
        -> ClusterView.Node?
    {
        var candidates = live(excludingDraining: true)
        if excludingSelf { candidates.removeAll { $0.record.node == configuration.node } }
        // Every node's claims in one read: a key a claim, under homes/NODE/.
        var claimsByNode: [String: Int] = [:]
        let claims: [EtcdClient.KeyValue]
        if let homes { claims = homes } else { claims = try await etcd.range(prefix: configuration.prefix + "homes/") }
        for kv in claims {
            let node = kv.key.dropFirst(configuration.prefix.count + "homes/".count).prefix { $0 != "/" }
            claimsByNode[String(node), default: 0] += 1
        }
        var best: (node: ClusterView.Node, claims: Int)?
        for node in candidates.shuffled() {
            let claims = claimsByNode[node.record.node] ?? 0
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
