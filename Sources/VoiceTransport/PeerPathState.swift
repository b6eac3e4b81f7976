/// Where the path to one remote participant stands.
public enum PeerPathState: Sendable, Hashable, CustomStringConvertible {
    /// No route has been chosen yet; candidates are being probed.
    case checking
    /// Voice flows on this route, the best kind that has worked since the last failover.
    case connected(PathRoute)
    /// A better route died and voice moved to a worse kind; the better one keeps being probed.
    case failedOver(from: PathRoute, to: PathRoute)
    /// Every route is silent; probing goes on until `peerTimeout`.
    case unreachable
    /// No route answered for `peerTimeout`. Final.
    case gone

    public var description: String {
        switch self {
        case .checking: "checking"
        case .connected(let route): "connected on \(route)"
        case .failedOver(let from, let to): "failed over from \(from) to \(to)"
        case .unreachable: "unreachable"
        case .gone: "gone"
        }
    }
}
