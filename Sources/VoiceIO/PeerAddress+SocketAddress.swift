import NIOCore
import VoiceCore

extension PeerAddress {
    /// The address as NIO's sockets take it. The host is already canonical and numeric, so this
    /// cannot fail.
    var socketAddress: SocketAddress {
        // A canonical numeric host parses by definition; a failure here is a bug in PeerAddress.
        guard let address = try? SocketAddress(ipAddress: host, port: port) else {
            preconditionFailure("PeerAddress holds a host NIO cannot parse: \(host)")
        }
        return address
    }
}
