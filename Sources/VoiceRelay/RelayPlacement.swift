/// Where a match lives when relays form a cluster: which relay is its home. The relay asks when a
/// join reaches it for a match it does not hold, when it drains, and when its last member of a
/// match it is home to leaves. The cluster's implementation keeps this in its store; a relay on
/// its own has none and holds every match it is asked for.
///
/// Called from tasks the relay starts, never on its event loop; each call may take a round trip
/// to the store, and must end (with `.unavailable` at worst) within about a second.
public protocol RelayPlacement: Sendable {
    /// The home of `match`: this relay, another one, or no answer now. A match with no home is
    /// given one (the least loaded relay that takes new matches).
    func place(match: String) async -> RelayPlacementDecision
    /// Gives `match`, whose home this relay is, another home (this relay is draining).
    func moveAway(match: String) async -> RelayPlacementDecision
    /// This relay no longer holds `match` (its last member left): its claim goes, if it is still its.
    func release(match: String) async
    /// From now on this relay takes no new matches (true), or takes them again.
    func setDraining(_ draining: Bool) async
    /// This relay holds as many of `match`'s players as it may: where the next ones go (a relay
    /// that holds part of the match with room, or one that takes a new part), `.full` when no
    /// relay has room. The relay's part counts as full until `partHasRoom`.
    func spill(match: String) async -> RelayPlacementDecision
    /// A player left this relay's full part of `match`: it takes players again.
    func partHasRoom(match: String) async
}

/// A relay of a cluster: its name, and the HOST:PORT players and the other relays reach it at.
public struct RelayNode: Sendable, Hashable {
    public var node: String
    public var address: String

    public init(node: String, address: String) {
        self.node = node
        self.address = address
    }
}

/// A placement's answer.
public enum RelayPlacementDecision: Sendable, Hashable, CustomStringConvertible {
    /// This relay is the match's home.
    case here
    /// Another relay is: players join it at `address` (HOST:PORT).
    case elsewhere(node: String, address: String)
    /// This relay holds part of a match that spans relays; `peers` hold the other parts.
    case part(peers: [RelayNode])
    /// No relay of the cluster has room for another player of the match.
    case full
    /// No answer now (the store cannot be reached, no relay takes new matches): why, in words.
    case unavailable(reason: String)

    public var description: String {
        switch self {
        case .here: "here"
        case .elsewhere(let node, let address): "\(node) at \(address)"
        case .part(let peers): "part here, with \(peers.map(\.node).joined(separator: ", "))"
        case .full: "every relay holds as many of its players as it may"
        case .unavailable(let reason): "unavailable: \(reason)"
        }
    }
}
