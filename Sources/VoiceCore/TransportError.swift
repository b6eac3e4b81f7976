#if canImport(Glibc)
    import Glibc
#endif

/// Why an address could not be parsed or a socket could not be opened.
///
/// Each failure has its own case so a caller can count them separately; the description says what
/// was wrong and what to do about it.
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host part is empty, or is not a numeric IPv4 or IPv6 address.
    case invalidHost(String)
    /// The port is outside 1…65535 (0 is allowed only when binding, to ask for any free port).
    case invalidPort(Int)
    /// A "host:port" text does not have that shape.
    case invalidAddressText(String, reason: String)
    /// The operating system refused to open or bind the socket; `errno` is its error number, when
    /// it gave one.
    case bindFailed(host: String, port: Int, reason: String, errno: Int32? = nil)

    public var description: String {
        switch self {
        case .invalidHost(let host):
            host.isEmpty
                ? "empty host: give a numeric IPv4 address such as 192.0.2.7 or an IPv6 address such as ::1"
                : "invalid host \"\(host)\": give a numeric IPv4 address such as 192.0.2.7 or an IPv6 address "
                    + "such as ::1 (host names are not resolved)"
        case .invalidPort(let port):
            "invalid port \(port): a port is a whole number from 1 to 65535"
        case .invalidAddressText(let text, let reason):
            "invalid address \"\(text)\": \(reason); write it as 192.0.2.7:5000 or [2001:db8::7]:5000"
        case .bindFailed(let host, let port, let reason, let errno):
            "cannot bind a UDP socket to \(host) port \(port): \(reason); "
                + (errno == EADDRNOTAVAIL
                    ? "\(host) is not an address of this machine: use 0.0.0.0 for every interface, or one of its "
                        + "addresses"
                    : "pick another port or use 0 for any free one")
        }
    }
}
