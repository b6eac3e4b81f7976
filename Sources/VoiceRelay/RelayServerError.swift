import VoiceRelayClient
import VoiceWire

/// Why a relay could not start.
public enum RelayServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Binding the UDP socket, TCP listener or metrics endpoint failed.
    case bindFailed(what: String, host: String, port: Int, reason: String)
    /// `start()` was called twice, or after `shutdown()`.
    case alreadyStarted

    public var description: String {
        switch self {
        case .bindFailed(let what, let host, let port, let reason):
            "relay could not bind its \(what) on \(host):\(port): \(reason); pick another port or free this one"
        case .alreadyStarted: "the relay was already started; make a new RelayServer to start again"
        }
    }
}
