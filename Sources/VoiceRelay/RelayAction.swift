import NIOCore

/// A TCP connection as `RelayState` knows it: a number its I/O side gave the connection when it
/// opened, never reused while the relay runs.
struct RelayConnectionID: Hashable {
    let rawValue: UInt64
}

/// Where a datagram or frame came from.
enum RelaySource: Hashable {
    case udp(SocketAddress)
    case tcp(RelayConnectionID)
}

/// What `RelayState` decided to send or close, for its I/O side to carry out in order.
enum RelayAction {
    /// One forwarded copy of a received envelope, over UDP. Every copy of one envelope carries the
    /// same `envelope` number, so its bytes can be staged once for all of them.
    case forward(ByteBuffer, envelope: UInt64, to: SocketAddress, destination: RelayDatagramDestination?)
    /// A relay message over UDP.
    case datagram(ByteBuffer, to: SocketAddress)
    /// A frame over a TCP connection, written and flushed.
    case frame(ByteBuffer, to: RelayConnectionID)
    /// Closes a TCP connection.
    case close(RelayConnectionID)
}
