import NIOCore
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why a relay could not start.
public enum RelayServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Binding the UDP socket, TCP listener or metrics endpoint failed.
    case bindFailed(what: String, host: String, port: Int, reason: String)
    /// `start()` was called twice, or after `shutdown()`.
    case alreadyStarted

    public var description: String {
        switch self {
        case .bindFailed(let what, let host, let port, let reason):
            "relay could not bind its \(what) on \(endpointText(host: host, port: port)): \(reason); \(Self.advice(reason: reason, host: host))"
        case .alreadyStarted: "the relay was already started; make a new RelayServer to start again"
        }
    }

    /// Why a bind failed, in the system's words ("Address already in use"), not NIO's call.
    static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }

    /// What to do about a failed bind, from the system's reason (its strerror text, or NIO's
    /// description with the errno).
    private static func advice(reason: String, host: String) -> String {
        if reason.contains("Cannot assign requested address") || reason.contains("errno: 99") {
            return "\(host) is not an address of this machine: use 0.0.0.0 for every interface, or one of its addresses"
        }
        if reason.contains("Permission denied") || reason.contains("errno: 13") {
            return "ports below 1024 need privileges: pick a port above 1023"
        }
        return "pick another port or stop the program using this one"
    }
}
