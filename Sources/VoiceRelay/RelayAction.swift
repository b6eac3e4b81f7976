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
    /// Copies of one received envelope over UDP, one to each of `RelayState.forwardDestinations[copies]`:
    /// the envelope once, its destinations as plain addresses, so a copy costs no reference count.
    case forward(ByteBuffer, copies: Range<Int>)
    /// A relay message over UDP.
    case datagram(ByteBuffer, to: SocketAddress)
    /// A frame over a TCP connection, written and flushed.
    case frame(ByteBuffer, to: RelayConnectionID)
    /// Closes a TCP connection.
    case close(RelayConnectionID)
    /// Asks the cluster where `match` lives; the answer comes back as `RelayState.placed`.
    case place(match: String)
    /// Asks the cluster for another home for `match`; the answer comes back as `RelayState.movedAway`.
    case moveAway(match: String)
    /// Tells the cluster this relay no longer holds `match`.
    case release(match: String)
    /// Asks the cluster where the players go that `match`'s full part here cannot take; the
    /// answer comes back as `RelayState.spilled`.
    case spill(match: String)
    /// Tells the cluster that `match`'s full part here takes players again.
    case partHasRoom(match: String)
}
