import VoiceCore
import VoiceSimulation
import VoiceTransport
import VoiceWire

/// Two path selectors wired back to back through simulated links with a fixed one-way latency.
/// Each direct link is a pair of addresses (one per side); any link, or one direction of it, can be
/// blocked. Both sides send a voice datagram every 20 ms on their active route and tick every 10 ms.
struct SimulatedPathLink {
    enum Side: Hashable { case a, b }
    enum Message { case probe(ConnectivityProbe), reply(ConnectivityProbe), voice }
    struct Arrival: Equatable { var time: MediaTime; var route: PathRoute }
    struct RouteChange: Equatable { var time: MediaTime; var from: PathRoute?; var to: PathRoute? }

    static let latency: MediaTime = .milliseconds(10)
    static let step: MediaTime = .milliseconds(5)

    let clock = ManualClock()
    var a: PathSelector
    var b: PathSelector
    let addressesA: [PeerAddress]
    let addressesB: [PeerAddress]
    /// Blocked (link, sending side). A link is the index of an address pair, or nil for app-carried.
    var blocked: Set<Blocked> = []
    var voiceArrivalsAtB: [Arrival] = []
    var changes: [Side: [RouteChange]] = [.a: [], .b: []]
    var peerGoneAt: [Side: MediaTime] = [:]
    var probesSent: [Side: [PathRoute]] = [.a: [], .b: []]
    var log: [String] = []
    private var inFlight: [(at: MediaTime, to: Side, route: PathRoute, message: Message)] = []

    struct Blocked: Hashable {
        var link: Int?
        var from: Side
    }

    init(
        links: Int, appCarried: Bool, configuration: PathSelectorConfiguration = PathSelectorConfiguration()
    ) throws {
        addressesA = try (0..<links).map { try PeerAddress(host: "10.0.0.1", port: 5000 + $0) }
        addressesB = try (0..<links).map { try PeerAddress(host: "10.0.0.2", port: 6000 + $0) }
        a = PathSelector(
            configuration: configuration, localCandidates: addressesA, appCarriedAvailable: appCarried, now: 0)
        b = PathSelector(
            configuration: configuration, localCandidates: addressesB, appCarriedAvailable: appCarried, now: 0,
            firstTransaction: 1_000_000)
        a.addRemoteCandidates(addressesB, now: 0)
        b.addRemoteCandidates(addressesA, now: 0)
    }

    mutating func block(link: Int?, from sides: [Side] = [.a, .b]) {
        for side in sides { blocked.insert(Blocked(link: link, from: side)) }
    }

    mutating func unblock(link: Int?) {
        blocked = blocked.filter { $0.link != link }
    }

    mutating func run(until end: MediaTime) {
        while clock.now < end {
            clock.advance(by: Self.step)
            let now = clock.now
            let due = inFlight.filter { $0.at <= now }
            inFlight.removeAll { $0.at <= now }
            for delivery in due { deliver(delivery.message, to: delivery.to, on: delivery.route) }
            if now % .milliseconds(10) == 0 {
                perform(a.tick(now: now), from: .a)
                perform(b.tick(now: now), from: .b)
            }
            if now % .milliseconds(20) == 0 {
                if let route = a.activeRoute { send(.voice, from: .a, on: route) }
                if let route = b.activeRoute { send(.voice, from: .b, on: route) }
            }
        }
    }

    /// The largest gap between voice datagrams arriving at B in [start, end): how long B heard nothing.
    func longestVoiceGapAtB(from start: MediaTime, to end: MediaTime) -> MediaTime {
        let times = voiceArrivalsAtB.map(\.time).filter { $0 >= start && $0 < end }
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? (end - start)
    }

    private mutating func deliver(_ message: Message, to side: Side, on route: PathRoute) {
        let now = clock.now
        switch (message, side) {
        case (.probe(let probe), .a): perform(a.receivedProbe(probe, on: route, now: now), from: .a)
        case (.probe(let probe), .b): perform(b.receivedProbe(probe, on: route, now: now), from: .b)
        case (.reply(let probe), .a): a.receivedProbeReply(probe, on: route, now: now)
        case (.reply(let probe), .b): b.receivedProbeReply(probe, on: route, now: now)
        case (.voice, .a): a.receivedTraffic(on: route, now: now)
        case (.voice, .b):
            b.receivedTraffic(on: route, now: now)
            voiceArrivalsAtB.append(Arrival(time: now, route: route))
        }
    }

    private mutating func perform(_ actions: [PathAction], from side: Side) {
        for action in actions {
            log.append("\(clock.now) \(side) \(action)")
            switch action {
            case .sendProbe(let probe, let route):
                probesSent[side, default: []].append(route)
                send(.probe(probe), from: side, on: route)
            case .sendProbeReply(let probe, let route): send(.reply(probe), from: side, on: route)
            case .routeChanged(let from, let to):
                changes[side, default: []].append(RouteChange(time: clock.now, from: from, to: to))
            case .peerGone: peerGoneAt[side] = clock.now
            }
        }
    }

    private mutating func send(_ message: Message, from side: Side, on route: PathRoute) {
        let link: Int?
        let arrivalRoute: PathRoute
        switch route {
        case .direct(let address):
            let (mine, theirs) = side == .a ? (addressesA, addressesB) : (addressesB, addressesA)
            guard let index = theirs.firstIndex(of: address) else { return }
            link = index
            arrivalRoute = .direct(mine[index])
        case .appCarried:
            link = nil
            arrivalRoute = .appCarried
        case .relayUDP, .relayTCP:
            return
        }
        guard !blocked.contains(Blocked(link: link, from: side)) else { return }
        inFlight.append((clock.now + Self.latency, side == .a ? .b : .a, arrivalRoute, message))
    }
}
