import CoreMetrics
import VoiceRelay

/// What a relay's Prometheus metrics say of its place in the cluster: its own view of the live
/// nodes and their players, whether etcd answers, and the lease's renewals and lapses.
struct ClusterMetrics: Sendable {
    private let nodes: Gauge
    private let participants: Gauge
    private let etcdReachable: Gauge
    private let renewals: Counter
    private let lapses: Counter

    init(prefix: String, factory: any MetricsFactory) {
        nodes = Gauge(label: prefix + "_cluster_nodes", factory: factory)
        participants = Gauge(label: prefix + "_cluster_participants", factory: factory)
        etcdReachable = Gauge(label: prefix + "_cluster_etcd_reachable", factory: factory)
        renewals = Counter(label: prefix + "_cluster_lease_renewals_total", factory: factory)
        lapses = Counter(label: prefix + "_cluster_lease_lapses_total", factory: factory)
    }

    func renewed() { renewals.increment() }

    func lapsed() { lapses.increment() }

    func etcd(reachable: Bool) { etcdReachable.record(reachable ? 1 : 0) }

    /// The cluster as this node last read it.
    func cluster(_ records: [ClusterNodeRecord]) {
        nodes.record(records.count)
        participants.record(records.reduce(0) { $0 + $1.participants })
    }
}
