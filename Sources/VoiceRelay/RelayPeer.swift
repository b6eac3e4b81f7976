import NIOCore

/// Another relay of the cluster this one shares a match with, as this one reaches it. Same
/// thread contract as `RelayState`.
final class RelayPeer {
    let node: String
    /// HOST:PORT as it advertises itself.
    private(set) var address: String
    /// Where datagrams go to it: `address` when that is an IP address and a port, else where its
    /// messages come from (a name is not looked up on the relay's loop); nil until either is known.
    private(set) var socketAddress: SocketAddress?
    /// The forwarding pass that last sent it a copy: one copy a pass, however many of its
    /// players hear it.
    var copyPass: UInt64 = 0

    init(node: String, address: String, source: SocketAddress? = nil) {
        self.node = node
        self.address = address
        socketAddress = Self.socketAddress(address) ?? source
    }

    /// Takes the address a relay advertises now (a restarted relay may have another), and where
    /// its message came from, if it came in one.
    func update(address: String, source: SocketAddress? = nil) {
        if let parsed = Self.socketAddress(address) {
            self.address = address
            socketAddress = parsed
        } else if let source {
            socketAddress = source
        }
    }

    /// "HOST:PORT" or "[V6]:PORT" with an IP address, as a socket address; no name is looked up
    /// (the relay's loop does not block).
    static func socketAddress(_ text: String) -> SocketAddress? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return try? SocketAddress(ipAddress: String(host), port: port)
    }
}
