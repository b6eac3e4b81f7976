/// What a relay publishes of itself in the cluster, at `/voicechat/nodes/NAME` under its lease:
/// where players reach it, and its load, republished every half second.
public struct ClusterNodeRecord: Codable, Sendable, Hashable {
    public var node: String
    /// HOST:PORT players and other relays reach it at.
    public var advertise: String
    public var participants: Int
    public var matches: Int
    /// Packets forwarded per second since the previous publication.
    public var forwardedPerSecond: Double
    /// The relay process's CPU since the previous publication, in cores.
    public var cpuCores: Double
    /// True while it takes no new matches.
    public var draining: Bool

    public init(
        node: String, advertise: String, participants: Int = 0, matches: Int = 0, forwardedPerSecond: Double = 0,
        cpuCores: Double = 0, draining: Bool = false
    ) {
        self.node = node
        self.advertise = advertise
        self.participants = participants
        self.matches = matches
        self.forwardedPerSecond = forwardedPerSecond
        self.cpuCores = cpuCores
        self.draining = draining
    }
}
