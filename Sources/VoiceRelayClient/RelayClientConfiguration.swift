import NIOCore
import VoiceCore
import VoiceWire

/// Which transport a `RelayClient` uses.
public enum RelayTransport: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case udp
    /// Length-framed TCP, for networks that block UDP.
    case tcp

    public var description: String { rawValue }
}

/// Where a `RelayClient` connects and as whom it joins.
public struct RelayClientConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Other relays of the same cluster (HOST:PORT each): a join that `host` does not answer, or
    /// a relay that went away, is tried at the next one in turn.
    public var otherRelays: [String] = []
    /// The local address the UDP socket sends from; nil: any (the system picks the route's).
    public var localHost: String?
    public var transport: RelayTransport
    /// `RelayToken.text`, as the game server issued it.
    public var token: String
    public var participant: String
    /// Voice channels started at join (channel 0 is implicit).
    public var channels: [ChannelNumber]
    /// Media IDs muted at join.
    public var muted: [MediaID]
    /// Channels heard positionally, and the range on each, told to the relay after every join.
    public var hearingRanges: [ChannelNumber: Float] = [:]
    /// The names of the channels (they travel as numbers), for the relay's logs and admin.
    public var channelNames: [ChannelNumber: String] = [:]
    /// How often the player's position is told again while it stands still: a datagram with it
    /// may have been lost, and a relay that restarted knows no position.
    public var positionRepeatInterval: Duration = .seconds(1)
    /// How often a joined client proves it is alive (and keeps NAT bindings open).
    public var keepaliveInterval: Duration = .milliseconds(250)
    /// Nothing heard from the relay for this long means it is gone: the client reports `.lost` and rejoins.
    public var livenessTimeout: Duration = .milliseconds(1000)
    /// Pause between join attempts (and TCP reconnects) while not joined.
    public var rejoinInterval: Duration = .milliseconds(250)
    /// While the match moves to another relay, the client stays on the old one too until it lets
    /// go (every member has joined the new one); at most this long after the new one took it.
    public var maximumMoveOverlap: Duration = .seconds(5)

    public init(
        host: String, port: Int, transport: RelayTransport, token: String, participant: String,
        channels: [ChannelNumber] = [], muted: [MediaID] = []
    ) {
        self.host = host
        self.port = port
        self.transport = transport
        self.token = token
        self.participant = participant
        self.channels = channels
        self.muted = muted
    }
}

extension RelayClientConfiguration {
    /// The host and port of a relay's `HOST:PORT` (`[v6]:PORT` for an IPv6 address), as
    /// `otherRelays` and redirects give them; nil if it is not one.
    public static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        return (host, port)
    }
}

/// Where a `RelayClient` stands.
public enum RelayClientState: Sendable, Hashable, CustomStringConvertible {
    /// Trying to reach the relay and join (first time).
    case joining
    /// A member; envelopes must name `mediaID` as sender.
    case joined(mediaID: MediaID)
    /// The relay went silent or away; the client keeps trying to join again.
    case lost
    /// The relay refused the token; the client stops until `updateToken` gives it a new one.
    case refused(RelayRefusal)
    /// Removed by the game server, or replaced by a newer connection; the client stops.
    case kicked(RelayKickReason)
    case closed

    public var isJoined: Bool {
        if case .joined = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .joining: "joining"
        case .joined(let id): "joined as \(id)"
        case .lost: "relay lost, rejoining"
        case .refused(let reason): "refused: \(reason)"
        case .kicked(let reason): "kicked: \(reason)"
        case .closed: "closed"
        }
    }
}

/// Why a `RelayClient` could not start.
public enum RelayClientError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidAddress(host: String, port: Int, reason: String)
    case bindFailed(reason: String)
    case invalidJoin(RelayMessageError)

    public var description: String {
        switch self {
        case .invalidAddress(let host, let port, let reason):
            "relay address \(endpointText(host: host, port: port)) is not usable: \(reason)"
        case .bindFailed(let reason): "relay client could not open its UDP socket: \(reason)"
        case .invalidJoin(let error): "relay join message cannot be built: \(error)"
        }
    }
}

extension RelayClientError {
    /// The relay's address and those of the `others` (HOST:PORT each), resolved, in order.
    static func resolving(_ host: String, port: Int, others: [String]) throws(RelayClientError) -> [SocketAddress] {
        var relays = [try resolving(host, port: port)]
        for other in others {
            guard let (otherHost, otherPort) = RelayClientConfiguration.hostAndPort(other) else {
                throw .invalidAddress(host: other, port: 0, reason: "it is not HOST:PORT")
            }
            relays.append(try resolving(otherHost, port: otherPort))
        }
        return relays
    }

    /// The relay's address, resolved; a host name that does not resolve is said in words.
    static func resolving(_ host: String, port: Int) throws(RelayClientError) -> SocketAddress {
        do {
            return try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch SocketAddressError.unknown {
            throw .invalidAddress(
                host: host, port: port,
                reason: "the host name does not resolve; check the spelling or give a numeric address")
        } catch {
            throw .invalidAddress(host: host, port: port, reason: "\(error)")
        }
    }
}
