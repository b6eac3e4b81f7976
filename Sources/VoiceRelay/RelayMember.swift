import NIOCore
import VoiceCore

/// One participant of one match, as the relay sees it.
///
/// Thread contract: created, read and changed only on the relay's event loop (it is reachable only
/// through `RelayState`), so the forwarding path needs no locks. Every collection in it is bounded
/// by `RelayJoin.maximumChannels` / `maximumMutes`, so a member's memory is bounded.
final class RelayMember {
    let match: RelayMatch
    let participant: String
    let mediaID: UInt32
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
    var channels: [UInt16]
    /// Media IDs whose voice this member does not want.
    var muted: [UInt32]
    var serverMuted = false
    var packetBucket: TokenBucket
    var byteBucket: TokenBucket
    var counters = RelayCounters()

    init(match: RelayMatch, participant: String, mediaID: UInt32, limits: RelayLimits, now: UInt64) {
        self.match = match
        self.participant = participant
        self.mediaID = mediaID
        channels = []
        muted = []
        packetBucket = TokenBucket(ratePerSecond: limits.packetsPerSecond, burst: limits.packetBurst, now: now)
        byteBucket = TokenBucket(ratePerSecond: limits.bytesPerSecond, burst: limits.byteBurst, now: now)
    }

    @inline(__always)
    func listens(to channel: UInt16) -> Bool {
        channel == 0 || channels.contains(channel)
    }

    var hasTransport: Bool { udpAddress != nil || tcpConnection != nil }
}

/// The members of one match. Same thread contract as `RelayMember`.
final class RelayMatch {
    let id: String
    var members: [RelayMember] = []

    init(id: String) { self.id = id }

    func member(participant: String) -> RelayMember? { members.first { $0.participant == participant } }
    func member(mediaID: UInt32) -> RelayMember? { members.first { $0.mediaID == mediaID } }
}
