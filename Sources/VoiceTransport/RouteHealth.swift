import VoiceCore

/// What a `PathSelector` knows about one route: when it was probed, when it last answered, how fast.
struct RouteHealth: Sendable, Hashable {
    let route: PathRoute
    /// When the route became known; it gets `directCheckTimeout` of fast probing from then on.
    let addedAt: MediaTime
    var lastProbeSentAt: MediaTime?
    var lastReplyAt: MediaTime?
    /// The last authenticated arrival of any kind: reply, probe from the peer, or traffic.
    var lastHeardAt: MediaTime?
    /// Replies in a row, each within `livenessTimeout` of the one before.
    var replyStreak = 0
    /// Smoothed round-trip time in milliseconds (RFC 6298 weights).
    var smoothedRoundTripTime: Double?
    /// Ranks routes that answered, first answered first, to break ties between equal routes.
    var answerRank: Int?

    init(route: PathRoute, addedAt: MediaTime) {
        self.route = route
        self.addedAt = addedAt
    }

    /// Both directions work: a reply came within `roundTripTimeout` and something arrived within
    /// `livenessTimeout`.
    func isAnswering(now: MediaTime, configuration: PathSelectorConfiguration) -> Bool {
        guard let lastReplyAt, let lastHeardAt else { return false }
        return now - lastReplyAt < configuration.roundTripTimeout && now - lastHeardAt < configuration.livenessTimeout
    }

    mutating func recordReply(roundTripMilliseconds sample: Double, now: MediaTime, livenessTimeout: MediaTime) {
        if let lastReplyAt, now - lastReplyAt <= livenessTimeout {
            replyStreak += 1
        } else {
            replyStreak = 1
        }
        lastReplyAt = now
        lastHeardAt = now
        if let smoothed = smoothedRoundTripTime {
            smoothedRoundTripTime = smoothed * 7 / 8 + sample / 8
        } else {
            smoothedRoundTripTime = sample
        }
    }
}
