/// How a relay takes part in a cluster.
public struct ClusterConfiguration: Sendable, Hashable {
    /// etcd's client URLs, e.g. `http://10.0.0.1:2379`.
    public var endpoints: [String]
    /// This relay's name in the cluster, unique among its nodes.
    public var node: String
    /// HOST:PORT players and other relays reach this relay at.
    public var advertise: String
    /// Where the cluster's keys live in etcd.
    public var prefix = "/voicechat/"
    /// How long the node's lease outlives its last renewal: a node that dies is gone for
    /// everyone this long after.
    public var leaseSeconds = 2
    /// How often the lease is renewed: a quarter of its life, so that two renewals may fail in a row.
    public var keepAliveInterval: Duration = .milliseconds(500)
    /// How often the node's load is published (and the others' records read): a node whose record
    /// has not changed for `suspectAfter` is taken for dead before its lease lapses.
    public var publishInterval: Duration = .milliseconds(500)
    /// How long a node's record may stay unchanged before the others stop sending players to it
    /// and take its matches over: three publications missed.
    public var suspectAfter: Duration = .milliseconds(1500)

    public init(endpoints: [String], node: String, advertise: String) {
        self.endpoints = endpoints
        self.node = node
        self.advertise = advertise
    }

    /// The key of `node`'s record.
    public func nodeKey(_ node: String) -> String { prefix + "nodes/" + node }

    public var nodesPrefix: String { prefix + "nodes/" }

    /// The key of `match`'s claim: its home node's name, under that node's lease.
    public func matchKey(_ match: String) -> String { prefix + "matches/" + match }

    /// Where the relays holding part of a match that spans relays are listed, one key each.
    public var partsPrefix: String { prefix + "parts/" }

    /// The key saying that `node` holds part of `match`: empty while the part takes players,
    /// `full` once it does not, under `node`'s lease.
    public func partKey(_ match: String, _ node: String) -> String { partsPrefix + match + "/" + node }

    /// Where `node`'s claims are counted: one key per match it is home to, under its lease.
    public func homesPrefix(_ node: String) -> String { prefix + "homes/" + node + "/" }
}
