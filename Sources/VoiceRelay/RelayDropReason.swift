/// Why the relay did not forward something it received. Each is counted globally and per member.
public enum RelayDropReason: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not a relay message or sealed envelope of this wire version, or one that does not parse.
    case malformed = 0
    /// An envelope from an address or connection that has not joined.
    case notJoined
    /// The envelope's sender field is not the media ID the connection joined as.
    case spoofedSender
    /// Over the member's packet or byte rate.
    case rateLimited
    /// The member is muted by the game server (voice only).
    case serverMuted
    /// Larger than `RelayLimits.maximumDatagramBytes`.
    case tooLarge
    /// A destination that is not a member of the sender's match (for signals: not attached to its signalling).
    case unknownDestination
    /// The relay's UDP socket or a TCP recipient's connection has a full outbound queue.
    case recipientCongested
    /// A join that was refused (bad token, full, …).
    case refusedJoin
    /// A TCP connection closed because it had not joined within `RelayConfiguration.helloDeadline`.
    case helloTimeout
    /// A TCP connection closed as it opened: its address held
    /// `RelayLimits.maximumUnjoinedConnectionsPerAddress` connections that had not joined.
    case addressConnectionLimit
    /// A join attempt dropped: its address was over `RelayLimits.joinAttemptsPerSecondPerAddress`.
    case joinRateLimited
    /// A TCP connection closed at a frame's header: it had not joined and announced a frame
    /// longer than any join (`RelayMessage.maximumJoinBytes`).
    case unjoinedFrameTooLarge
    /// A position a member reported for another player than itself.
    case foreignPosition
    /// A position a member reported after the game server placed it (the server's stands).
    case positionHeldByServer
    /// A message between relays that no key of this cluster's secrets authenticates.
    case peerUnauthenticated
    /// A message between relays for a match, or from a player, this relay does not share with its sender.
    case peerUnknown

    public var description: String {
        switch self {
        case .malformed: "malformed"
        case .notJoined: "not_joined"
        case .spoofedSender: "spoofed_sender"
        case .rateLimited: "rate_limited"
        case .serverMuted: "server_muted"
        case .tooLarge: "too_large"
        case .unknownDestination: "unknown_destination"
        case .recipientCongested: "recipient_congested"
        case .refusedJoin: "refused_join"
        case .helloTimeout: "hello_timeout"
        case .addressConnectionLimit: "address_connection_limit"
        case .joinRateLimited: "join_rate_limited"
        case .unjoinedFrameTooLarge: "unjoined_frame_too_large"
        case .foreignPosition: "foreign_position"
        case .positionHeldByServer: "position_held_by_server"
        case .peerUnauthenticated: "peer_unauthenticated"
        case .peerUnknown: "peer_unknown"
        }
    }
}

/// Counts of one relay or one member. Plain integers: they live on the relay's event loop.
public struct RelayCounters: Sendable, Hashable {
    public var packetsReceived = 0
    public var bytesReceived = 0
    /// Copies sent to recipients (one envelope to five listeners counts five).
    public var packetsForwarded = 0
    public var bytesForwarded = 0
    /// Voice copies not sent because the listener hears the channel positionally and the
    /// speaker is out of its range (one envelope kept from five listeners counts five).
    public var packetsOutOfRange = 0
    /// Signals forwarded between signalling members (not counted in `packetsForwarded`).
    public var signalsForwarded = 0
    public var signalBytesForwarded = 0
    /// Voice envelopes sent to other relays of the cluster for their players of a match that
    /// spans them (one per relay, whatever its players), and received from them.
    public var peerVoiceSent = 0
    public var peerVoiceReceived = 0
    /// Messages about players (their state, their leaving, a relay's arrival) sent to other relays.
    public var peerStateSent = 0
    public var drops = [Int](repeating: 0, count: RelayDropReason.allCases.count)

    public init() {}

    public func drops(_ reason: RelayDropReason) -> Int { drops[reason.rawValue] }
    public var totalDrops: Int { drops.reduce(0, +) }
}
