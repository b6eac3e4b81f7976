import NIOCore
import VoiceWire

/// What a relay of a cluster knows of the matches it shares with other relays (see
/// `RelayState+Span`): the other relays, which of them hold part of each match, and the keys
/// their messages are authenticated with. Part of `RelayState`, on its event loop.
struct RelaySpans {
    /// This relay, as the others know it; nil outside a cluster.
    let identity: RelayNode?
    /// The cluster's secret's key, then the retiring one's.
    let keys: [RelayPeerKey]
    /// The other relays heard of, by node name.
    var peers: [String: RelayPeer] = [:]
    /// By match, the other relays holding part of it, each with when it was linked.
    var links: [String: [String: UInt64]] = [:]
    /// By match, the participants attached to its signalling on other relays: on which relay, and
    /// when that relay last named them.
    var remoteSignalling: [String: [String: (node: String, describedAt: UInt64)]] = [:]
    /// Matches this relay holds part of without being their home.
    var parts: Set<String> = []
    /// Matches whose part here is full, as the cluster was told.
    var full: Set<String> = []
    /// Counts forwarding passes (see `RelayPeer.copyPass`).
    var pass: UInt64 = 0
    /// The stamp of the last message sent to a peer.
    private var lastStamp: UInt64 = 0

    init(configuration: RelayConfiguration) {
        identity = configuration.clusterNode
        keys = [configuration.secret, configuration.previousSecret].compactMap { $0 }.map(RelayPeerKey.init)
    }

    /// The peer `node` at `address` (its message came from `source`), known from now on.
    mutating func peer(_ node: String, at address: String, source: SocketAddress? = nil) -> RelayPeer {
        if let peer = peers[node] {
            peer.update(address: address, source: source)
            return peer
        }
        let peer = RelayPeer(node: node, address: address, source: source)
        peers[node] = peer
        return peer
    }

    /// A stamp after every earlier one, near `now`.
    mutating func stamp(now: UInt64) -> UInt64 {
        lastStamp = max(now, lastStamp &+ 1)
        return lastStamp
    }
}
