import NIOCore

/// The relays a client (media or signalling) was given, and the one it talks to now: a join that
/// got no answer moves on to the next one given; a redirect moves to the relay it names, and a
/// loop of redirects (a cluster in flux) is followed at the normal pace instead of at once.
struct RelayAddresses {
    private let given: [SocketAddress]
    private var index = 0
    private var redirectsInARow = 0
    /// Where the client joins now: one of those given, or where a relay sent it.
    var current: SocketAddress

    init(_ given: [SocketAddress]) {
        self.given = given
        current = given[0]
    }

    /// The relay to try after `current` gave no answer: the next one given (the one in turn again
    /// after a redirect took the client elsewhere); nil when there is no other.
    mutating func next() -> SocketAddress? {
        guard given.count > 1 || current != given[index] else { return nil }
        if current == given[index] { index = (index + 1) % given.count }
        return given[index]
    }

    /// Counts a redirect; whether to follow it at once.
    mutating func redirected() -> Bool {
        redirectsInARow += 1
        return redirectsInARow <= 4
    }

    /// The client joined: the redirects that led there are no loop.
    mutating func joined() { redirectsInARow = 0 }

    /// A relay's HOST:PORT as a redirect or a move gives it; nil (and ignored) if it is not one.
    static func address(_ text: String) -> SocketAddress? {
        guard let (host, port) = RelayClientConfiguration.hostAndPort(text) else { return nil }
        return try? SocketAddress.makeAddressResolvingHost(host, port: port)
    }
}
