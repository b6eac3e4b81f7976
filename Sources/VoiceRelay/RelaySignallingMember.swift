import VoiceCore
import VoiceRelayShared

/// One participant attached to a match's signalling, as the relay sees it: a TCP connection of its
/// own, separate from the participant's media membership (`RelayMember`), so that either can come
/// and go without disturbing the other.
///
/// Thread contract: created, read and changed only on the relay's event loop, like `RelayMember`.
final class RelaySignallingMember {
    let match: String
    let participant: String
    /// Replaced when the participant attaches again from a newer connection.
    var connection: RelayConnectionID
    var lastHeard: UInt64
    var signalBucket: TokenBucket
    var byteBucket: TokenBucket

    init(match: String, participant: String, connection: RelayConnectionID, limits: RelayLimits, now: UInt64) {
        self.match = match
        self.participant = participant
        self.connection = connection
        lastHeard = now
        signalBucket = TokenBucket(ratePerSecond: limits.signalsPerSecond, burst: limits.signalBurst, now: now)
        byteBucket = TokenBucket(ratePerSecond: limits.signalBytesPerSecond, burst: limits.signalByteBurst, now: now)
    }
}
