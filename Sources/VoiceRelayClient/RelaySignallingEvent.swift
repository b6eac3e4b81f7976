import VoiceWire

/// What a `RelaySignallingClient` reports.
public enum RelaySignallingEvent: Sendable, Hashable {
    /// The first join succeeded: the other members present then, sorted. After a reconnect the
    /// client reports what changed meanwhile as `memberJoined` / `memberLeft` instead.
    case joined(members: [String])
    /// A join after a lost connection succeeded; what changed meanwhile follows as `memberJoined`
    /// and `memberLeft`.
    case rejoined
    case memberJoined(String)
    /// The member's signalling connection closed, left or went silent, and it did not come back
    /// within `RelaySignallingTiming.leaveGrace`.
    case memberLeft(String)
    case signal(from: String, payload: [UInt8])
    /// The relay refused the join. Token refusals are final (the client stops); `matchFull` and
    /// `relayFull` are retried.
    case refused(RelayRefusal)
    /// The connection closed or the relay went silent; the client reconnects and joins again.
    case lost
    /// The game server removed this participant, or a newer connection of it replaced this one:
    /// the client stops.
    case kicked(RelayKickReason)
}

/// Where a `RelaySignallingClient` stands.
public enum RelaySignallingState: Sendable, Hashable, CustomStringConvertible {
    /// Connecting and joining for the first time.
    case joining
    case joined
    /// Connection lost; reconnecting and joining again.
    case lost
    case refused(RelayRefusal)
    case kicked(RelayKickReason)
    case closed

    public var description: String {
        switch self {
        case .joining: "joining"
        case .joined: "joined"
        case .lost: "relay lost, reconnecting"
        case .refused(let reason): "refused: \(reason)"
        case .kicked(let reason): "kicked: \(reason)"
        case .closed: "closed"
        }
    }
}

/// Timing and bounds of a `RelaySignallingClient`.
public struct RelaySignallingTiming: Sendable, Hashable {
    /// How often a joined client proves it is alive (the relay drops silent connections).
    public var keepaliveInterval: Duration = .milliseconds(250)
    /// Nothing heard from the relay for this long means the connection is dead: the client
    /// reports `.lost`, closes it and reconnects.
    public var livenessTimeout: Duration = .seconds(2)
    /// Pause between connection attempts while not joined.
    public var reconnectInterval: Duration = .milliseconds(250)
    /// How long a member missing from the roster (it left, or had not come back yet after a relay
    /// restart) may take to return before the client reports it left. A member that drops out and
    /// returns within this time is not reported at all.
    public var leaveGrace: Duration = .seconds(3)
    /// How long a signal waits for its destination to be present (or for this client to be joined)
    /// before it is dropped.
    public var holdTime: Duration = .seconds(10)
    /// Most signals waiting; the oldest is dropped to admit a new one beyond this.
    public var maximumHeldSignals = 1024
    /// Most payload bytes waiting; the oldest signals are dropped to admit a new one beyond this.
    public var maximumHeldBytes = 2 * 1024 * 1024

    public init() {}
}
