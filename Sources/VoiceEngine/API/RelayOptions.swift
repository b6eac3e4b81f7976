/// How a match reaches its relay: where it is, the token that admits this player, and which of
/// the relay's transports the engine may use.
public struct RelayOptions: Sendable, Hashable {
    public var host: String
    /// The relay's port (UDP, and TCP unless `tcpPort` says otherwise).
    public var port: Int
    /// The relay's TCP port when it differs from `port` (a load balancer or a proxy in between);
    /// nil: `port`.
    public var tcpPort: Int?
    /// Other relays of the same cluster (HOST:PORT each), tried in turn when `host` does not
    /// answer or goes away; a relay that is not the match's home redirects the join to it.
    public var otherRelays: [String] = []
    /// `RelayToken` text the game server issued for (match, participant).
    public var token: String
    /// Whether voice may go through the relay over UDP (the relay UDP route).
    public var allowsUDP: Bool = true
    /// Whether voice may go through the relay over TCP. The TCP connection is joined from the start
    /// as a standby, so that it takes over within a second when UDP to the relay fails.
    public var allowsTCP: Bool = true
    /// The relay is the primary path: no direct candidates are offered (players' IPs stay hidden) and
    /// voice goes through the relay from the start; app-carried remains a fallback if the app offers it.
    public var isPrimary: Bool = false

    public init(host: String, port: Int, token: String) {
        self.host = host
        self.port = port
        self.token = token
    }
}
