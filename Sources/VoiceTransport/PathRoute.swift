import VoiceCore

/// One way to reach a remote participant: a remote candidate address over direct UDP, or a shared
/// carrier (the app's channel, a relay) that the owner knows how to use.
public enum PathRoute: Sendable, Hashable, CustomStringConvertible {
    case direct(PeerAddress)
    case appCarried
    case relayUDP
    case relayTCP

    public var kind: RealTimePathKind {
        switch self {
        case .direct: .direct
        case .appCarried: .appCarried
        case .relayUDP: .relayUDP
        case .relayTCP: .relayTCP
        }
    }

    public var description: String {
        switch self {
        case .direct(let address): "direct \(address)"
        case .appCarried: "app-carried"
        case .relayUDP: "relay (UDP)"
        case .relayTCP: "relay (TCP)"
        }
    }
}
