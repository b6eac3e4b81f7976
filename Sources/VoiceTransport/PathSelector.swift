import VoiceCore
import VoiceWire

/// Chooses the route voice takes to ONE remote participant, and keeps every usable route checked so
/// that a dead one is replaced within a second.
///
/// Pure logic: no I/O and no clock reads. The owner feeds it the probes, replies and traffic that
/// passed authentication, calls `tick(now:)` regularly (every 10–20 ms: route changes and probes
/// happen only there), and performs the `PathAction`s it returns. The same input gives the same
/// output, so tests drive it on a virtual clock.
///
/// Rules:
/// - While checking, every route is probed every `probeInterval`; the first route that answers
///   is used, a direct one first: worse kinds wait `directCheckTimeout`, unless nothing direct is
///   allowed by `setPreferred`.
/// - Among routes that answer, the best kind wins (direct, app-carried, relay UDP, relay TCP),
///   then the lowest smoothed round-trip time, then the first to answer. A route of the same kind
///   never displaces a working one: switching costs a glitch and buys little.
/// - Routes that answer get a keepalive every `keepaliveInterval`; the others are probed every
///   `recoveryProbeInterval` once their check time is over.
/// - The active route is dead when nothing arrived on it for `livenessTimeout`, or no probe reply
///   for `roundTripTimeout`; voice moves at once to the best route that answers.
/// - A better route than the active one takes over after `recoveryReplies` replies in a row.
/// - With no route answering for `peerTimeout`, the participant is gone (`.peerGone`, once).
public struct PathSelector: Sendable {
    public let configuration: PathSelectorConfiguration
    /// This side's addresses, to send to the peer in signalling.
    public let localCandidates: [PeerAddress]
    /// Where to send voice now; `nil` while nothing works.
    public private(set) var activeRoute: PathRoute?
    public private(set) var state: PeerPathState = .checking
    /// The only kind allowed, or `nil` for automatic choice.
    public private(set) var preferred: RealTimePathKind?
    /// Authenticated replies that answered no probe this side has outstanding on that route
    /// (late, duplicated, or arriving on another route than the probe took).
    public private(set) var unmatchedReplies = 0

    private var health: [RouteHealth] = []
    private let startedAt: MediaTime
    private var nextTransaction: UInt64
    private var outstanding: [UInt64: (route: PathRoute, sentAt: MediaTime)] = [:]
    private var routesAnswered = 0
    /// When a route last proved a round trip (or the start): the clock of `peerTimeout`.
    private var lastRoundTripAt: MediaTime
    private var everActive = false
    /// The best route lost to a failure and not yet regained, for `.failedOver`.
    private var bestLost: PathRoute?

    /// - Parameter firstTransaction: where probe transaction numbers start; a random value keeps
    ///   probes of a restarted selector apart from those of the one before.
    public init(
        configuration: PathSelectorConfiguration = PathSelectorConfiguration(), localCandidates: [PeerAddress],
        appCarriedAvailable: Bool, now: MediaTime, firstTransaction: UInt64 = 1
    ) {
        self.configuration = configuration
        self.localCandidates = localCandidates
        self.startedAt = now
        self.lastRoundTripAt = now
        self.nextTransaction = firstTransaction
        if appCarriedAvailable { health.append(RouteHealth(route: .appCarried, addedAt: now)) }
    }

    // MARK: Routes

    /// Every route known, in the order it became known.
    public var routes: [PathRoute] { health.map(\.route) }

    /// Smoothed round-trip time of the active route, in milliseconds.
    public var roundTripTime: Double? {
        activeRoute.flatMap { roundTripTime(on: $0) }
    }

    /// Smoothed round-trip time of one route, in milliseconds, once it has answered.
    public func roundTripTime(on route: PathRoute) -> Double? {
        index(of: route).flatMap { health[$0].smoothedRoundTripTime }
    }

    /// Whether `route` currently proves a round trip.
    public func isAnswering(_ route: PathRoute, now: MediaTime) -> Bool {
        index(of: route).map { health[$0].isAnswering(now: now, configuration: configuration) } ?? false
    }

    /// The peer's candidates from signalling. Duplicates are ignored; so are addresses of a family
    /// this side has no candidate of (they could not be reached), and any beyond `maximumDirectRoutes`.
    public mutating func addRemoteCandidates(_ addresses: [PeerAddress], now: MediaTime) {
        let families = Set(localCandidates.map(\.family))
        for address in addresses where families.isEmpty || families.contains(address.family) {
            addDirectRoute(address, now: now)
        }
    }

    public mutating func setAppCarriedAvailable(_ available: Bool, now: MediaTime) {
        setRoute(.appCarried, present: available, now: now)
    }

    /// Adds or removes a relay route (`kind` is `.relayUDP` or `.relayTCP`; other kinds are ignored).
    public mutating func setRelayAvailable(_ kind: RealTimePathKind, _ available: Bool, now: MediaTime) {
        switch kind {
        case .relayUDP: setRoute(.relayUDP, present: available, now: now)
        case .relayTCP: setRoute(.relayTCP, present: available, now: now)
        case .direct, .appCarried: return
        }
    }

    /// Restricts the choice (and the probing) to one kind, or lifts the restriction with `nil`.
    /// Takes effect at the next `tick`.
    public mutating func setPreferred(_ kind: RealTimePathKind?) {
        preferred = kind
    }

    // MARK: Events

    /// An authenticated probe from the peer: answer it on the route it came in on. A probe from a
    /// direct address not yet known (the peer seen through a NAT) adds that address as a route.
    /// With a path kind forced, a probe on any other kind goes unanswered, so that the peer, which
    /// takes whatever answers, settles on the same kind instead of sending on one this side refuses.
    public mutating func receivedProbe(_ probe: ConnectivityProbe, on route: PathRoute, now: MediaTime)
        -> [PathAction]
    {
        var actions: [PathAction] = []
        receivedProbe(probe, on: route, now: now, into: &actions)
        return actions
    }

    /// `receivedProbe(_:on:now:)`, appending its actions to `actions` (a buffer the engine thread
    /// keeps, so that a probe costs it no allocation).
    public mutating func receivedProbe(
        _ probe: ConnectivityProbe, on route: PathRoute, now: MediaTime, into actions: inout [PathAction]
    ) {
        guard state != .gone, preferred.map({ $0 == route.kind }) != false else { return }
        if case .direct(let address) = route { addDirectRoute(address, now: now) }
        guard let index = index(of: route) else { return }
        health[index].lastHeardAt = now
        actions.append(.sendProbeReply(probe, route))
    }

    /// An authenticated reply to one of this side's probes.
    public mutating func receivedProbeReply(_ probe: ConnectivityProbe, on route: PathRoute, now: MediaTime) {
        guard state != .gone else { return }
        guard let record = outstanding[probe.transaction], record.route == route, let index = index(of: route),
            now >= record.sentAt
        else {
            unmatchedReplies += 1
            return
        }
        outstanding[probe.transaction] = nil
        health[index].recordReply(
            roundTripMilliseconds: (now - record.sentAt).milliseconds, now: now,
            livenessTimeout: configuration.livenessTimeout)
        if health[index].answerRank == nil {
            health[index].answerRank = routesAnswered
            routesAnswered += 1
        }
        lastRoundTripAt = max(lastRoundTripAt, now)
    }

    /// Any other authenticated datagram (voice, reports, game data) that arrived on `route`.
    public mutating func receivedTraffic(on route: PathRoute, now: MediaTime) {
        guard state != .gone, let index = index(of: route) else { return }
        health[index].lastHeardAt = now
    }

    /// Re-evaluates the routes and sends the probes that are due.
    public mutating func tick(now: MediaTime) -> [PathAction] {
        var actions: [PathAction] = []
        tick(now: now, into: &actions)
        return actions
    }

    /// `tick(now:)`, appending its actions to `actions` (a buffer the engine thread keeps).
    public mutating func tick(now: MediaTime, into actions: inout [PathAction]) {
        guard state != .gone else { return }
        // Rebuilt only when a probe expired, not on every tick.
        if outstanding.values.contains(where: { now - $0.sentAt >= configuration.roundTripTimeout }) {
            outstanding = outstanding.filter { now - $0.value.sentAt < configuration.roundTripTimeout }
        }
        chooseRoute(now: now, actions: &actions)
        if activeRoute == nil, now - lastRoundTripAt >= configuration.peerTimeout {
            state = .gone
            actions.append(.peerGone)
            return
        }
        for index in health.indices where isAllowed(health[index].route) {
            guard probeIsDue(health[index], now: now) else { continue }
            let probe = ConnectivityProbe(
                transaction: nextTransaction, sentAt: now,
                isKeepalive: health[index].isAnswering(now: now, configuration: configuration))
            nextTransaction &+= 1
            health[index].lastProbeSentAt = now
            outstanding[probe.transaction] = (health[index].route, now)
            actions.append(.sendProbe(probe, health[index].route))
        }
    }

    // MARK: Choice

    private mutating func chooseRoute(now: MediaTime, actions: inout [PathAction]) {
        if let active = activeRoute, isAllowed(active), isAnswering(active, now: now) {
            if let better = bestRoute(now: now, minimumStreak: configuration.recoveryReplies, betterThan: active.kind) {
                switchRoute(to: better, actions: &actions)
            }
            return
        }
        if let lost = activeRoute, index(of: lost) != nil, isAllowed(lost),
            bestLost.map({ lost.kind <= $0.kind }) ?? true
        {
            bestLost = lost
        }
        // The active route, if any, is dead or no longer allowed here, so any replacement differs from it.
        let replacement = bestRoute(now: now, minimumStreak: 1, betterThan: nil)
        if replacement == nil && activeRoute == nil {
            if everActive || now - startedAt >= configuration.directCheckTimeout { state = .unreachable }
            return
        }
        switchRoute(to: replacement, actions: &actions)
    }

    private func bestRoute(now: MediaTime, minimumStreak: Int, betterThan limit: RealTimePathKind?) -> PathRoute? {
        // Direct routes get their check time before a worse kind is taken, when there are any: with
        // no candidate to check (the peer offered none), waiting would only delay the call.
        let holdWorseKinds =
            preferred == nil && !everActive && now - startedAt < configuration.directCheckTimeout
            && health.contains { $0.route.kind == .direct }
        var best: RouteHealth?
        for candidate in health where isAllowed(candidate.route) {
            let kind = candidate.route.kind
            guard candidate.replyStreak >= minimumStreak,
                candidate.isAnswering(now: now, configuration: configuration),
                limit.map({ kind < $0 }) ?? true,
                !(holdWorseKinds && kind != .direct)
            else { continue }
            if let current = best, !isPreferable(candidate, over: current) { continue }
            best = candidate
        }
        return best?.route
    }

    private func isPreferable(_ candidate: RouteHealth, over current: RouteHealth) -> Bool {
        if candidate.route.kind != current.route.kind { return candidate.route.kind < current.route.kind }
        let candidateTime = candidate.smoothedRoundTripTime ?? .infinity
        let currentTime = current.smoothedRoundTripTime ?? .infinity
        if candidateTime != currentTime { return candidateTime < currentTime }
        return (candidate.answerRank ?? .max) < (current.answerRank ?? .max)
    }

    private mutating func switchRoute(to route: PathRoute?, actions: inout [PathAction]) {
        let previous = activeRoute
        activeRoute = route
        actions.append(.routeChanged(from: previous, to: route))
        guard let route else {
            state = .unreachable
            return
        }
        everActive = true
        if let lost = bestLost, lost.kind < route.kind {
            state = .failedOver(from: lost, to: route)
        } else {
            bestLost = nil
            state = .connected(route)
        }
    }

    // MARK: Probing

    private func probeIsDue(_ route: RouteHealth, now: MediaTime) -> Bool {
        guard let last = route.lastProbeSentAt else { return true }
        let interval: MediaTime
        if route.isAnswering(now: now, configuration: configuration) {
            // A quiet active route is probed faster, so one lost keepalive is not mistaken for death.
            let quiet = route.lastReplyAt.map { now - $0 > configuration.keepaliveInterval * 3 / 2 } ?? true
            interval =
                route.route == activeRoute && quiet ? configuration.probeInterval : configuration.keepaliveInterval
        } else if activeRoute == nil || now - route.addedAt < configuration.directCheckTimeout {
            interval = configuration.probeInterval
        } else {
            interval = configuration.recoveryProbeInterval
        }
        return now - last >= interval
    }

    // MARK: Bookkeeping

    private func isAllowed(_ route: PathRoute) -> Bool {
        preferred.map { route.kind == $0 } ?? true
    }

    private func index(of route: PathRoute) -> Int? {
        health.firstIndex { $0.route == route }
    }

    private mutating func addDirectRoute(_ address: PeerAddress, now: MediaTime) {
        let route = PathRoute.direct(address)
        guard index(of: route) == nil,
            health.count(where: { $0.route.kind == .direct }) < configuration.maximumDirectRoutes
        else { return }
        health.append(RouteHealth(route: route, addedAt: now))
    }

    private mutating func setRoute(_ route: PathRoute, present: Bool, now: MediaTime) {
        if present {
            if index(of: route) == nil { health.append(RouteHealth(route: route, addedAt: now)) }
        } else {
            health.removeAll { $0.route == route }
            outstanding = outstanding.filter { $0.value.route != route }
            if bestLost == route { bestLost = nil }
        }
    }
}
