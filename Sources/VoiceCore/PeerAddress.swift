#if canImport(Glibc)
    import Glibc
#endif

/// A numeric IPv4 or IPv6 address and a UDP port: where a remote engine can be reached.
///
/// Host names are never resolved: candidates travel in signalling as numbers, and resolving a name
/// that a peer sent would let it make this engine query arbitrary DNS servers. The host is kept in
/// its canonical text form, so two spellings of one address compare equal.
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible, Codable {
    public enum Family: Sendable, Hashable {
        case ipv4
        case ipv6
    }

    /// Canonical numeric form, without brackets ("192.0.2.7", "2001:db8::7").
    public let host: String
    public let port: Int
    public let family: Family

    /// - Throws: `.invalidHost` unless `host` is a numeric IPv4 or IPv6 address (brackets around an
    ///   IPv6 address are accepted); `.invalidPort` unless `port` is in 1…65535.
    public init(host: String, port: Int) throws(TransportError) {
        try self.init(host: host, port: port, allowingAnyPort: false)
    }

    /// Parses "192.0.2.7:5000" or "[2001:db8::7]:5000". An IPv6 address must be in brackets, so that
    /// its last group is never mistaken for the port.
    public init(parsing text: String) throws(TransportError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw .invalidAddressText(text, reason: "the IPv6 address has no closing bracket")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.first == ":" else {
                throw .invalidAddressText(text, reason: "a colon and a port must follow the closing bracket")
            }
            portText = rest.dropFirst()
        } else {
            let colons = text.filter { $0 == ":" }.count
            guard colons == 1, let colon = text.firstIndex(of: ":") else {
                throw .invalidAddressText(
                    text,
                    reason: colons == 0
                        ? "the port is missing" : "an IPv6 address must be written in brackets before the port")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portText)
        else {
            throw .invalidAddressText(text, reason: "the port \"\(portText)\" is not a number from 1 to 65535")
        }
        try self.init(host: String(host), port: port)
    }

    /// `port` 0 is accepted here: it is what a local socket asks for when any free port will do.
    package init(host: String, port: Int, allowingAnyPort: Bool) throws(TransportError) {
        guard (allowingAnyPort ? 0 : 1)...65535 ~= port else { throw .invalidPort(port) }
        var bare = host
        if bare.hasPrefix("[") && bare.hasSuffix("]") && bare.count >= 2 {
            bare = String(bare.dropFirst().dropLast())
        }
        guard let (canonical, family) = Self.canonicalize(bare) else { throw .invalidHost(host) }
        self.host = canonical
        self.port = port
        self.family = family
    }

    /// "192.0.2.7:5000" or "[2001:db8::7]:5000": the form `init(parsing:)` reads.
    public var description: String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public var isLoopback: Bool {
        family == .ipv4 ? host.hasPrefix("127.") : host == "::1"
    }

    /// fe80::/10: valid only together with an interface, which this type does not carry.
    public var isLinkLocal: Bool {
        guard family == .ipv6, let first = host.split(separator: ":").first, let group = UInt16(first, radix: 16)
        else { return false }
        return group & 0xFFC0 == 0xFE80
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// inet_pton is strict (no leading zeros, no trailing garbage, no zone), and inet_ntop gives the
    /// one canonical spelling.
    private static func canonicalize(_ host: String) -> (String, Family)? {
        guard !host.isEmpty, host.utf8.count < 64, !host.contains("%") else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return (text(of: &v4, family: AF_INET), .ipv4) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return (text(of: &v6, family: AF_INET6), .ipv6) }
        return nil
    }

    private static func text<Address>(of address: inout Address, family: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let count = buffer.count
        _ = buffer.withUnsafeMutableBufferPointer { output in
            withUnsafePointer(to: &address) { inet_ntop(family, $0, output.baseAddress, socklen_t(count)) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A host and port as a person types them: an IPv6 host in brackets (`[::1]:7300`), so that its
/// colons are not taken for the port's.
public func endpointText(host: String, port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
}
