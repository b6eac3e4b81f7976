import VoiceWire

import struct Foundation.Date

/// Per-participant bounds that keep one client from starving the others or growing the relay's memory.
public struct RelayLimits: Sendable, Hashable {
    /// Sustained envelopes per second a member may send (voice is 50/s; probes and reports add a few).
    public var packetsPerSecond: Double = 200
    /// Envelopes a member may send in a burst above the sustained rate.
    public var packetBurst: Double = 100
    /// Sustained bytes per second a member may send.
    public var bytesPerSecond: Double = 160_000
    /// Bytes a member may send in a burst.
    public var byteBurst: Double = 64_000
    /// Sustained positions per second a member may report (a game moves players up to 30 times a second).
    public var positionsPerSecond: Double = 40
    /// Positions a member may report in a burst.
    public var positionBurst: Double = 20
    /// Largest envelope the relay forwards.
    public var maximumDatagramBytes = 1400
    /// Most members of one match on this relay; in a cluster, a match with more spans relays.
    public var maximumMembersPerMatch = 64
    /// Most members across all matches.
    public var maximumParticipants = 20_000
    /// Bytes queued towards one TCP member before its packets are dropped instead of queued.
    public var tcpWriteBufferBytes = 64 * 1024
    /// Largest signal payload the relay forwards between signalling members (at most
    /// `RelayMessage.maximumSignalBytes`).
    public var maximumSignalBytes = RelayMessage.maximumSignalBytes
    /// Sustained signals per second one signalling member may send; separate from its media limits.
    public var signalsPerSecond: Double = 100
    /// Signals a signalling member may send in a burst (joining a match sends a few to each player).
    public var signalBurst: Double = 400
    /// Sustained signal bytes per second one signalling member may send.
    public var signalBytesPerSecond: Double = 256 * 1024
    /// Signal bytes a signalling member may send in a burst.
    public var signalByteBurst: Double = 1024 * 1024
    /// Most TCP connections one IP address may hold open without having joined; more are closed
    /// as they open, until some join or go (see `RelayConfiguration.helloDeadline`).
    public var maximumUnjoinedConnectionsPerAddress = 32
    /// Sustained joins (media or signalling) one IP address may attempt per second; each costs
    /// the relay a token check. Attempts beyond it are dropped unanswered.
    public var joinAttemptsPerSecondPerAddress: Double = 20
    /// Join attempts one address may make in a burst (a LAN party behind one NAT joining at once).
    public var joinAttemptBurst: Double = 64

    public init() {}
}

/// How a `RelayServer` listens, whom it admits, and how it bounds each member.
public struct RelayConfiguration: Sendable {
    /// Address for both the UDP socket and the TCP listener.
    public var host: String
    /// 0 picks a free port (read it from `RelayServer.localPort`); UDP and TCP share it.
    public var port: Int
    /// The secret the game server signs join tokens with.
    public var secret: RelaySecret
    /// The secret being retired, while a new one rolls out: tokens signed with it are still taken
    /// (every relay of a cluster holds both until the game server signs with the new one only).
    public var previousSecret: RelaySecret?
    /// Matches this relay serves; nil serves any match the game server signed a token for.
    public var allowedMatches: Set<String>?
    /// This relay's name in tokens: it refuses a token signed for another audience (a token with
    /// none is for any relay that holds the secret). nil: it takes only tokens for any relay.
    public var audience: String?
    public var limits = RelayLimits()
    /// This relay as the other relays of its cluster know it; nil for a relay on its own. A match
    /// larger than one relay takes (`RelayLimits.maximumMembersPerMatch`) spans relays that know
    /// each other by it.
    public var clusterNode: RelayNode?
    /// A member transport with nothing heard for this long is dropped (clients send keepalives every ~250 ms).
    public var livenessTimeout: Duration = .seconds(5)
    /// A TCP connection that has not joined (for media or for signalling) this long after it
    /// opened is closed: left open, every idle connection would hold a descriptor for good.
    public var helloDeadline: Duration = .seconds(5)
    /// How often statistics are published to swift-metrics and the liveness sweep runs.
    public var housekeepingInterval: Duration = .milliseconds(500)
    /// Serve Prometheus text exposition on `http://prometheusHost:prometheusPort/metrics` (nil: no endpoint;
    /// metrics then go to whatever `MetricsSystem` the embedding process bootstrapped).
    public var prometheusPort: Int?
    public var prometheusHost = "127.0.0.1"
    /// Prefix of every metric's label.
    public var metricsPrefix = "voicechat_relay"
    /// Unix seconds, for token expiry (replaceable for tests).
    public var unixTime: @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970) }

    public init(host: String = "127.0.0.1", port: Int = 0, secret: RelaySecret) {
        self.host = host
        self.port = port
        self.secret = secret
    }
}
