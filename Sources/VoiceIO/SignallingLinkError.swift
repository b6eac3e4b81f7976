import VoiceCore
import VoiceWire

/// Why a signalling link could not be set up or a listener could not be opened. The description is
/// one sentence that says what went wrong and what to do.
public enum SignallingLinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host name could not be resolved.
    case unknownHost(String)
    /// Nothing listens at the address.
    case connectionRefused(host: String, port: Int)
    /// The network has no route to the host.
    case unreachable(host: String, port: Int, reason: String)
    /// The TCP connection was not established in time.
    case connectTimedOut(host: String, port: Int, seconds: Double)
    /// Connected, but no hello came back in time.
    case helloTimedOut(host: String, port: Int, seconds: Double)
    /// Connecting failed for another reason.
    case connectFailed(host: String, port: Int, reason: String)
    /// The listener answered but will not take the call (busy, same name, …); its reason is given.
    case refused(reason: String)
    /// The connection closed before the hello exchange finished.
    case closedDuringHello
    /// The peer sent something that is not a valid frame.
    case protocolError(SignallingFrameError)
    /// Another program already listens on the port.
    case portInUse(host: String, port: Int)
    /// Listening failed for another reason.
    case bindFailed(host: String, port: Int, reason: String)
    /// The listener was closed while waiting for a call.
    case listenerClosed
    /// This side's own participant ID cannot be sent.
    case invalidParticipant(String)
    /// The port is outside 1…65535 (0 only for a listener: any free port).
    case invalidPort(Int)

    public var description: String {
        switch self {
        case .unknownHost(let host):
            "cannot resolve the host name \"\(host)\"; check the spelling or give a numeric address"
        case .connectionRefused(let host, let port):
            "nothing is listening at \(endpointText(host: host, port: port)); start `voicechat listen --port \(port)` there first, "
                + "or check the address"
        case .unreachable(let host, let port, let reason):
            "cannot reach \(endpointText(host: host, port: port)) (\(reason)); check the address and the network between the hosts"
        case .connectTimedOut(let host, let port, let seconds):
            "no answer from \(endpointText(host: host, port: port)) within \(formatted(seconds)) s; check the address and that no firewall "
                + "drops the connection"
        case .helloTimedOut(let host, let port, let seconds):
            "\(endpointText(host: host, port: port)) accepted the connection but sent no hello within \(formatted(seconds)) s; "
                + "check that it is a voicechat listener"
        case .connectFailed(let host, let port, let reason):
            "cannot connect to \(endpointText(host: host, port: port)): \(reason)"
        case .refused(let reason):
            "the call was refused: \(reason)"
        case .closedDuringHello:
            "the peer closed the connection before saying hello; check that it is a voicechat listener of the same release"
        case .protocolError(let error):
            "the peer broke the link protocol: \(error)"
        case .portInUse(let host, let port):
            "port \(port) on \(host) is already in use; stop the program using it or pick another --port"
        case .bindFailed(let host, let port, let reason):
            "cannot listen on \(host) port \(port): \(reason); pick another --port"
        case .listenerClosed:
            "the listener was closed before a call arrived"
        case .invalidParticipant(let reason):
            "invalid participant ID: \(reason); give a non-empty name of at most "
                + "\(SignallingFrame.maximumParticipantBytes) bytes"
        case .invalidPort(let port):
            "invalid port \(port): a port is a whole number from 1 to 65535"
        }
    }

    private func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// How a link ended.
public enum SignallingLinkEnding: Sendable, Hashable, CustomStringConvertible {
    /// This side closed it.
    case closedLocally
    /// The peer said bye and closed it.
    case peerHungUp
    /// The connection broke without a bye (the peer's process ended, the network failed).
    case connectionLost
    /// The peer sent something invalid; this side closed the link.
    case protocolError(SignallingFrameError)

    public var description: String {
        switch self {
        case .closedLocally: "closed by this side"
        case .peerHungUp: "the peer hung up"
        case .connectionLost: "the connection was lost"
        case .protocolError(let error): "protocol error: \(error)"
        }
    }
}
