/// Why a message between relays could not be opened or written.
public enum RelayPeerMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Its tag is no key's the relay holds: not from a relay of this cluster (or one that has
    /// another secret).
    case unauthenticated
    /// Byte 0 or 1 is not a relay peer message this build knows, or its fields do not add up.
    case malformed(reason: String)

    public var description: String {
        switch self {
        case .unauthenticated:
            "relay peer message not authenticated by this cluster's secret (a relay with another secret, or forged)"
        case .malformed(let reason): "malformed relay peer message: \(reason)"
        }
    }
}
