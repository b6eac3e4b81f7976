import NIOCore
import VoiceCore
import VoiceRelayShared
import VoiceWire

/// One participant of one match, as the relay sees it.
///
/// Thread contract: created, read and changed only on the relay's event loop (it is reachable only
/// through `RelayState`), so the forwarding path needs no locks. Every collection in it is bounded
/// by `RelayJoin.maximumChannels` / `maximumMutes`, so a member's memory is bounded.
final class RelayMember {
    let match: RelayMatch
    let participant: String
    let mediaID: MediaID
    /// Where the member's UDP datagrams come from and go to, if it joined over UDP.
    var udpAddress: SocketAddress? {
        didSet { udpDestination = udpAddress.flatMap(RelayDatagramDestination.init) }
    }
    /// `udpAddress` as the relay's batch sender hands it to the kernel.
    private(set) var udpDestination: RelayDatagramDestination?
    /// Its TCP connection, if it joined over TCP.
    var tcpConnection: RelayConnectionID?
    var lastHeardUDP: UInt64 = 0
    var lastHeardTCP: UInt64 = 0
    var lastVoice: UInt64 = 0
    /// Started voice channels; channel 0 (the match itself) is implicit.
    var channels: [ChannelNumber]
    /// Media IDs whose voice this member does not want.
    var muted: [MediaID]
    var serverMuted = false
    /// While its match moves away: whether it said it has joined the new home.
    var hasMoved = false
    var packetBucket: TokenBucket
    var byteBucket: TokenBucket
    var counters = RelayCounters()
    /// Where the player stands, once it or the game server said so; on positional channels a
    /// player without a position is heard by nobody and hears nobody.
    var position: VoicePosition?
    /// Set once the game server placed the player: its own reports are ignored from then on.
    var isPlacedByServer = false
    var positionBucket: TokenBucket
    /// The channels this member hears positionally, each with whom it hears there now.
    var hearings: [RelayHearing] = [] {
        didSet { hearsPositionally = !hearings.isEmpty }
    }
    /// Whether it hears any channel positionally: all the forwarding path asks of a member that
    /// does not, so that proximity costs the relay nothing where it is not used.
    private(set) var hearsPositionally = false
    /// The relay of the cluster this member joined, when that is another one: this is then the
    /// player as that relay last described it (`RelayState+Span`), with no transport here.
    let peer: RelayPeer?
    /// For a player on a peer: the stamp of the last description taken, when it was taken, and
    /// the channels it hears positionally with their ranges (its hearings are its relay's to keep).
    var peerStamp: UInt64 = 0
    var describedAt: UInt64 = 0
    var peerHearings: [(channel: ChannelNumber, range: HearingRange)] = []

    init(
        match: RelayMatch, participant: String, mediaID: MediaID, limits: RelayLimits, now: UInt64,
        peer: RelayPeer? = nil
    ) {
        self.match = match
        self.peer = peer
        self.participant = participant
        self.mediaID = mediaID
        channels = []
        muted = []
        packetBucket = TokenBucket(ratePerSecond: limits.packetsPerSecond, burst: limits.packetBurst, now: now)
        byteBucket = TokenBucket(ratePerSecond: limits.bytesPerSecond, burst: limits.byteBurst, now: now)
        positionBucket = TokenBucket(
            ratePerSecond: limits.positionsPerSecond, burst: limits.positionBurst, now: now)
    }

    @inline(__always)
    func listens(to channel: ChannelNumber) -> Bool {
        channel == 0 || channels.contains(channel)
    }

    var hasTransport: Bool { udpAddress != nil || tcpConnection != nil }

    /// Starts `channel` (0 is always heard); false when the member has as many as a join may list.
    func startChannel(_ channel: ChannelNumber) -> Bool {
        guard channel != 0, !channels.contains(channel) else { return true }
        guard channels.count < RelayJoin.maximumChannels else { return false }
        channels.append(channel)
        return true
    }

    /// Mutes `speaker` for this member; false when it has muted as many as a join may list.
    func mute(_ speaker: MediaID) -> Bool {
        guard !muted.contains(speaker) else { return true }
        guard muted.count < RelayJoin.maximumMutes else { return false }
        muted.append(speaker)
        return true
    }

    /// Whether this member hears `speaker`'s voice on `channel`: always, unless it hears the
    /// channel positionally and the speaker is out of its range. No allocation: the forwarding path asks.
    @inline(__always)
    func hears(_ speaker: MediaID, on channel: ChannelNumber) -> Bool {
        for hearing in hearings where hearing.channel == channel {
            return hearing.audible.contains(speaker)
        }
        return true
    }

    /// Where one copy of a control message reaches it: its TCP connection when it has one (a
    /// position lost over UDP would not be sent again until the player moves), else UDP.
    var preferredSource: RelaySource? {
        if let connection = tcpConnection { return .tcp(connection) }
        return udpAddress.map { .udp($0) }
    }

    /// Whether this member hears `speaker` on any positional channel.
    func hears(_ speaker: MediaID) -> Bool {
        hearings.contains { $0.audible.contains(speaker) }
    }

    /// Brings whether this member hears `speaker` up to date, at `distanceSquared` from it (nil:
    /// one of the two has no position).
    func updateHearing(of speaker: MediaID, distanceSquared: Float?) {
        for index in hearings.indices {
            let was = hearings[index].audible.contains(speaker)
            let now =
                distanceSquared.map { hearings[index].range.isAudible(distanceSquared: $0, wasAudible: was) } ?? false
            if now && !was {
                hearings[index].audible.insert(speaker)
            } else if was && !now {
                hearings[index].audible.remove(speaker)
            }
        }
    }
}
