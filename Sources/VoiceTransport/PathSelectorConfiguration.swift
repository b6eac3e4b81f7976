import VoiceCore

/// Timing of a `PathSelector`. All durations are in nanoseconds (`MediaTime`).
///
/// The defaults detect a dead route in under a second on a call: voice and keepalives arrive every
/// 20–200 ms, so 0.7 s of silence is several missed keepalives in a row, not one lost datagram.
public struct PathSelectorConfiguration: Sendable, Hashable {
    /// Between probes on a route that has not answered yet, or whose answers became irregular.
    public var probeInterval: MediaTime
    /// Between probes on a route that answers: enough to notice it going silent, cheap otherwise.
    public var keepaliveInterval: MediaTime
    /// A route on which nothing authenticated (reply, probe, traffic) arrived for this long is dead.
    public var livenessTimeout: MediaTime
    /// A route whose probes got no reply for this long is dead even if traffic still arrives from
    /// it: traffic proves only the direction towards this side.
    public var roundTripTimeout: MediaTime
    /// How long direct candidates get before a worse kind (app-carried, relay) may be used.
    public var directCheckTimeout: MediaTime
    /// Between probes on a route that is not answering, once its check time is over: how a dead
    /// better route is noticed coming back.
    public var recoveryProbeInterval: MediaTime
    /// Replies in a row (each within `livenessTimeout` of the one before) a better route must give
    /// before voice moves back to it, so a flapping route does not pull voice back and forth.
    public var recoveryReplies: Int
    /// With no route answering for this long, the participant is gone.
    public var peerTimeout: MediaTime
    /// Remote candidates kept at most (signalled ones and peer-reflexive ones together), so a peer
    /// cannot make this side probe without bound.
    public var maximumDirectRoutes: Int

    public init(
        probeInterval: MediaTime = .milliseconds(100),
        keepaliveInterval: MediaTime = .milliseconds(200),
        livenessTimeout: MediaTime = .milliseconds(700),
        roundTripTimeout: MediaTime = .milliseconds(1_000),
        directCheckTimeout: MediaTime = .milliseconds(2_000),
        recoveryProbeInterval: MediaTime = .milliseconds(500),
        recoveryReplies: Int = 3,
        peerTimeout: MediaTime = .milliseconds(10_000),
        maximumDirectRoutes: Int = 16
    ) {
        self.probeInterval = probeInterval
        self.keepaliveInterval = keepaliveInterval
        self.livenessTimeout = livenessTimeout
        self.roundTripTimeout = roundTripTimeout
        self.directCheckTimeout = directCheckTimeout
        self.recoveryProbeInterval = recoveryProbeInterval
        self.recoveryReplies = recoveryReplies
        self.peerTimeout = peerTimeout
        self.maximumDirectRoutes = maximumDirectRoutes
    }
}
