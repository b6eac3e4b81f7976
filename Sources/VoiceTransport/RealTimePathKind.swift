/// The kinds of path voice can take to a remote participant, in the engine's order of preference.
public enum RealTimePathKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable,
    CustomStringConvertible
{
    /// UDP straight between the two engines, on a candidate pair that answered probes.
    case direct
    /// The embedding app's own unreliable channel (`sendRealTime`), when it offers one.
    case appCarried = "app"
    /// A relay server over UDP.
    case relayUDP = "relay"
    /// A relay server over TCP, for networks that block UDP.
    case relayTCP = "relay-tcp"

    /// Lower is better.
    public var preference: Int {
        switch self {
        case .direct: 0
        case .appCarried: 1
        case .relayUDP: 2
        case .relayTCP: 3
        }
    }

    public static func < (lhs: RealTimePathKind, rhs: RealTimePathKind) -> Bool { lhs.preference < rhs.preference }

    public var description: String { rawValue }
}
