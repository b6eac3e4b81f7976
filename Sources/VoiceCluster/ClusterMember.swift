import CoreMetrics
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import VoiceRelay

/// A relay's membership of the cluster: its record (`ClusterNodeRecord`) put under a lease of
/// `leaseSeconds`, the lease renewed every `keepAliveInterval`, the load republished every
/// `publishInterval`. A relay that dies stops renewing, and its record (with every claim under the
/// same lease) is gone for everyone when the lease lapses. etcd unreachable is logged and retried;
/// a lease that lapsed meanwhile is replaced by a new one. On shutdown the lease is revoked, so
/// the node leaves at once.
public final class ClusterMember: Service, Sendable {
    public let configuration: ClusterConfiguration
    private let etcd: EtcdClient
    private let admin: RelayAdmin
    private let logger: Logger
    private let metrics: ClusterMetrics
    /// What this node reads of the cluster at each publication, for its placement.
    public let view: ClusterView
    /// The node's placement, whose claims are made again after a lease lapsed.
    private let placement: ClusterPlacement?
    /// Set while lost claims are being made again.
    private let reclaiming = Atomic<Bool>(false)

    /// - Parameter metricsFactory: where the cluster's figures go (the relay's `metricsFactory`).
    public init(
        configuration: ClusterConfiguration, admin: RelayAdmin, view: ClusterView = ClusterView(),
        placement: ClusterPlacement? = nil, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory, metricsPrefix: String = "voicechat_relay",
        etcd: EtcdClient? = nil
    ) {
        self.configuration = configuration
        // Each attempt well inside the lease, so that one member down leaves time for the next.
        self.etcd = etcd ?? EtcdClient(endpoints: configuration.endpoints, timeout: .milliseconds(400))
        self.admin = admin
        self.view = view
        self.placement = placement
        self.logger = logger
        metrics = ClusterMetrics(prefix: metricsPrefix, factory: metricsFactory)
    }

    public func run() async throws {
        let interval = configuration.keepAliveInterval
        // Shutting down cancels a renewal under way, so that the relay stops within a second
        // even with etcd unreachable.
        let lease = await cancelWhenGracefulShutdown { () async -> Int64? in
            var membership = Membership()
            while !Task.isCancelled {
                await self.renew(&membership)
                // While etcd does not answer, it is tried again sooner: once back, the node is
                // registered and placing matches again within a few hundred milliseconds.
                try? await Task.sleep(for: membership.isEtcdDown ? interval / 5 : interval)
            }
            return membership.lease
        }
        guard let lease else { return }
        do {
            // Every endpoint tried at most briefly: the lease lapses by itself anyway.
            try await EtcdClient(endpoints: configuration.endpoints, timeout: .milliseconds(200)).revoke(lease: lease)
            logger.info("left the cluster", metadata: ["node": "\(configuration.node)"])
        } catch {
            logger.notice("could not leave the cluster; its lease lapses by itself", metadata: ["reason": "\(error)"])
        }
    }

    /// What this node holds in etcd, and what its last publication measured from.
    private struct Membership {
        var lease: Int64?
        var publishedAt: ContinuousClock.Instant?
        var forwarded = 0
        var cpuSeconds = 0.0
        var isEtcdDown = false
        /// The draining state the last publication said.
        var publishedDraining = false
    }

    private func renew(_ membership: inout Membership) async {
        do throws(EtcdError) {
            if let lease = membership.lease {
                do throws(EtcdError) {
                    try await etcd.keepAlive(lease: lease)
                    metrics.renewed()
                } catch .leaseExpired {
                    metrics.lapsed()
                    logger.notice(
                        "the cluster lease lapsed; joining again", metadata: ["node": "\(configuration.node)"])
                    membership.lease = nil
                    view.lease = nil
                }
            }
            let now = ContinuousClock.now
            if membership.lease == nil {
                membership.lease = try await etcd.grantLease(seconds: configuration.leaseSeconds)
                membership.publishedAt = nil
            }
            let isDraining = view.isDraining
            if let lease = membership.lease,
                membership.publishedAt.map({ now - $0 >= configuration.publishInterval * 4 / 5 }) ?? true
                    || isDraining != membership.publishedDraining
            {
                var record = await load(since: &membership, now: now)
                record.draining = isDraining
                let bytes = (try? JSONEncoder().encode(record)).map { [UInt8]($0) } ?? []
                let isNew = membership.publishedAt == nil
                try await etcd.put(configuration.nodeKey(configuration.node), bytes, lease: lease)
                membership.publishedAt = now
                membership.publishedDraining = isDraining
                view.lease = lease
                let nodes = try await etcd.range(prefix: configuration.nodesPrefix)
                view.update(nodes, gap: configuration.publishInterval * 2)
                metrics.cluster(view.nodes.map(\.record))
                // Claims lost with a lapsed lease, or taken over while this node seemed gone: claimed
                // again, or their players moved to where the match lives now; and the matches that
                // span relays linked as the cluster lists them; beside the renewals, which must not
                // wait for either.
                if reclaiming.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
                    Task {
                        await reclaim()
                        await linkSpans()
                        reclaiming.store(false, ordering: .relaxed)
                    }
                }
                if isNew {
                    logger.info(
                        "joined the cluster",
                        metadata: ["node": "\(configuration.node)", "advertise": "\(configuration.advertise)"])
                }
            }
            metrics.etcd(reachable: true)
            if membership.isEtcdDown {
                membership.isEtcdDown = false
                logger.notice("etcd is reachable again", metadata: ["node": "\(configuration.node)"])
            }
        } catch {
            metrics.etcd(reachable: false)
            if !membership.isEtcdDown {
                membership.isEtcdDown = true
                logger.error("cannot reach the cluster", metadata: ["reason": "\(error)"])
            }
        }
    }

    /// Claims again each match placed here whose claim (its key under this node's homes) is gone;
    /// one another relay took meanwhile moves there. The matches are read before the claims, so
    /// that one placed in between is not taken for lost, and each is read again before it is
    /// claimed, so that one released in between is not claimed for nobody.
    private func reclaim() async {
        guard let placement, let matches = try? await admin.homeMatches(),
            let claimed = try? await etcd.range(prefix: configuration.homesPrefix(configuration.node))
        else { return }
        let claimedKeys = Set(claimed.map(\.key))
        for match in matches where !claimedKeys.contains(configuration.homesPrefix(configuration.node) + match) {
            guard (try? await admin.homeMatches().contains(match)) == true else { continue }
            let decision = await placement.reclaim(match: match)
            logger.notice(
                "a match placed here had lost its claim", metadata: ["match": "\(match)", "home now": "\(decision)"])
            if case .elsewhere = decision { try? await admin.matchMoved(match, to: decision) }
        }
    }

    /// Tells the relay which matches span which relays, and lists its part of each it holds
    /// without being listed (a home whose match another relay linked, a part given before a restart).
    private func linkSpans() async {
        guard let placement else { return }
        do throws(EtcdError) {
            let listing = try await placement.spanningMatches()
            guard let unlisted = try? await admin.spansListed(listing) else { return }
            for match in unlisted { try await placement.listPart(of: match) }
        } catch {
            logger.debug("could not read the matches that span relays", metadata: ["reason": "\(error)"])
        }
    }

    /// The node's record now, with the rates measured since the last publication.
    private func load(since membership: inout Membership, now: ContinuousClock.Instant) async -> ClusterNodeRecord {
        var record = ClusterNodeRecord(node: configuration.node, advertise: configuration.advertise)
        let cpu = ProcessCPU.seconds()
        guard let statistics = try? await admin.statistics() else { return record }
        record.participants = statistics.participants
        record.matches = statistics.matches
        if let last = membership.publishedAt {
            let elapsed = Double((now - last).components.seconds) + Double((now - last).components.attoseconds) / 1e18
            if elapsed > 0 {
                record.forwardedPerSecond =
                    Double(statistics.counters.packetsForwarded - membership.forwarded) / elapsed
                record.cpuCores = (cpu - membership.cpuSeconds) / elapsed
            }
        }
        membership.forwarded = statistics.counters.packetsForwarded
        membership.cpuSeconds = cpu
        return record
    }
}

extension ClusterMember {
    /// Every live node's record, by name, as the cluster sees it now.
    public static func nodes(in configuration: ClusterConfiguration, etcd: EtcdClient? = nil) async throws(EtcdError)
        -> [ClusterNodeRecord]
    {
        let client = etcd ?? EtcdClient(endpoints: configuration.endpoints)
        return ClusterView.records(try await client.range(prefix: configuration.nodesPrefix)).map(\.0)
    }
}
