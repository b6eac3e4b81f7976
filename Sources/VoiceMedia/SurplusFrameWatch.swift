import VoiceCore

/// Whether a receive stream's playout position is a whole frame later than its packets need.
///
/// The position moves in whole frames, so the band around the target is more than a frame wide
/// and a position a frame too late can sit inside it for the rest of a call: after a stall of
/// the listener, or when the stream happened to start a frame late. The band cannot tell the
/// two positions apart; the packets can. When every frame played for `window` waited at least
/// a frame longer than the sender's repair reach needs, plus `marginMilliseconds`, the position
/// may move a frame earlier and every one of those frames would still have been in time.
struct SurplusFrameWatch {
    /// How long every frame must have had a frame to spare.
    static let window: MediaTime = 2 * MediaTime.nanosecondsPerSecond
    /// What each frame must still have had to spare after the step, ms.
    static let marginMilliseconds = 3.0

    let frameMilliseconds: Double
    /// Since when every frame played had a frame to spare; nil after one that did not.
    private var since: MediaTime?

    init(frameMilliseconds: Double) {
        self.frameMilliseconds = frameMilliseconds
    }

    /// Notes a frame played from a packet that waited `waitMilliseconds` after it arrived, from a
    /// sender whose repair reaches `reachMilliseconds` back (later packets must come in time too).
    mutating func notePlayed(waitMilliseconds: Double, reachMilliseconds: Double, at now: MediaTime) {
        if waitMilliseconds >= reachMilliseconds + frameMilliseconds + Self.marginMilliseconds {
            if since == nil { since = now }
        } else {
            since = nil
        }
    }

    /// Starts over: after a packet came too late, a wait for one, or any step of the position.
    mutating func restart() { since = nil }

    /// Whether the position has had a frame to spare for the whole window.
    func hasSurplusFrame(at now: MediaTime) -> Bool {
        guard let since else { return false }
        return now - since >= Self.window
    }
}
