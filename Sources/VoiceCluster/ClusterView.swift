import Foundation
import Synchronization
import VoiceRelay

/// The cluster as this node last read it: every node's record, the lease each is under, and when
/// each record last changed by this node's clock (a node publishes every `publishInterval`, so a
/// record that stopped changing belongs to a node that stopped); and this node's own lease and
/// whether it drains. `ClusterMember` keeps it fresh; `ClusterPlacement` reads it.
public final class ClusterView: Sendable {
    /// A node as last read.
    public struct Node: Sendable, Hashable {
        public var record: ClusterNodeRecord
        /// The lease its record (and its claims) are under.
        public var lease: Int64
        var revision: Int64
        var changedAt: ContinuousClock.Instant
    }

    private struct State {
        var nodes: [String: Node] = [:]
        /// When the records were last read.
        var readAt: ContinuousClock.Instant?
        var lease: Int64?
        var isDraining = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Takes in the records read under the nodes' prefix. A record unchanged since the last read
    /// counts as unchanged for that long only if the last read was recent: while etcd could not
    /// be read, nobody could publish, and that says nothing of the nodes.
    func update(_ kvs: [EtcdClient.KeyValue], now: ContinuousClock.Instant = .now, gap: Duration = .seconds(1)) {
        let records = Self.records(kvs)
        state.withLock { state in
            let blind = state.readAt.map { now - $0 > gap } ?? true
            state.readAt = now
            var nodes: [String: Node] = [:]
            for (record, kv) in records {
                let previous = state.nodes[record.node]
                let changed = blind || previous?.revision != kv.modRevision
                nodes[record.node] = Node(
                    record: record, lease: kv.lease, revision: kv.modRevision,
                    changedAt: changed ? now : previous?.changedAt ?? now)
            }
            state.nodes = nodes
        }
    }

    /// The node records among `kvs` (read under the nodes' prefix), each with its key's entry;
    /// what does not decode as one is left out.
    static func records(_ kvs: [EtcdClient.KeyValue]) -> [(ClusterNodeRecord, EtcdClient.KeyValue)] {
        kvs.compactMap { kv in
            (try? JSONDecoder().decode(ClusterNodeRecord.self, from: Data(kv.value))).map { ($0, kv) }
        }
    }

    /// Whether the records were read within `age`.
    func isRecent(within age: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { $0.readAt.map { now - $0 <= age } ?? false }
    }

    /// Nodes whose record changed within `freshness`, by name.
    func liveNodes(freshness: Duration, now: ContinuousClock.Instant = .now) -> [Node] {
        state.withLock { state in
            state.nodes.values.filter { now - $0.changedAt <= freshness }.sorted { $0.record.node < $1.record.node }
        }
    }

    /// Every node as last read.
    public var nodes: [Node] { state.withLock { Array($0.nodes.values) }.sorted { $0.record.node < $1.record.node } }

    /// This node's lease, once it has one.
    public internal(set) var lease: Int64? {
        get { state.withLock { $0.lease } }
        set { state.withLock { $0.lease = newValue } }
    }

    /// Whether this node drains: it takes no new matches, and says so in its record.
    public internal(set) var isDraining: Bool {
        get { state.withLock { $0.isDraining } }
        set { state.withLock { $0.isDraining = newValue } }
    }
}
