import ArgumentParser
import Foundation
import NIOPosix
import Synchronization
import VoiceCore
import VoiceIO
import VoiceRelay
import VoiceRelayClient
import VoiceTransport
import VoiceWire

/// `bench/run failover`: how long voice stops when the route it takes dies, over real loopback UDP.
struct FailoverBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failover",
        abstract: "Failover time (last voice datagram on the dead route → first on the new one) over loopback UDP.",
        discussion: """
            Two peers, each with a UDP socket per route on 127.0.0.1, run a PathSelector each, driven \
            in real time (tick every 10 ms, a 60-byte voice datagram every 20 ms on the active route, \
            probes and keepalives as the selector asks; datagrams are not sealed). After a warm-up, \
            the socket of B on which A's voice arrives turns into a black hole: it drops everything \
            it receives and sends nothing. The figure is the gap at B between the last voice datagram \
            on that socket and the first on another one. Scenarios: a second direct pair takes over; \
            app-carried (simulated by a third socket pair) takes over; a relay (a RelayServer in this \
            process, joined by a RelayClient per peer and transport) takes over from direct UDP; and \
            relay TCP takes over from relay UDP (B's relay UDP client turns into the black hole). \
            Relay datagrams carry a sealed-envelope clear header so the relay forwards them. The baseline is the same \
            harness with conventional keepalive timing (1 s keepalives, dead after 3 s of silence, \
            the usual "three missed keepalives" rule), so the ratio shows what the liveness timing buys.
            """
    )

    @Option(help: "Repetitions per scenario (fresh sockets and selectors each time).")
    var repetitions = 10

    @Option(help: "Seconds of call before the route dies (both routes must answer by then).")
    var warmup = 1.5

    func validate() throws {
        guard repetitions > 0, warmup >= 0.5 else {
            throw ValidationError("--repetitions must be positive and --warmup at least 0.5 s")
        }
    }

    func run() throws {
        var conventional = PathSelectorConfiguration()
        conventional.keepaliveInterval = .milliseconds(1_000)
        conventional.livenessTimeout = .milliseconds(3_000)
        conventional.roundTripTimeout = .milliseconds(3_000)
        let scenarios: [(name: String, fallback: FailoverPeer.Fallback, configuration: PathSelectorConfiguration)] = [
            ("to 2nd direct pair", .secondDirect, PathSelectorConfiguration()),
            ("to app-carried", .appCarried, PathSelectorConfiguration()),
            ("direct to relay UDP", .relayUDP, PathSelectorConfiguration()),
            ("relay UDP to relay TCP", .relayTCP, PathSelectorConfiguration()),
            ("to 2nd direct pair, conventional 3 s", .secondDirect, conventional),
        ]
        let baselineIndex = scenarios.count - 1
        let warmupTime = MediaTime.milliseconds(warmup * 1_000)
        let (results, tickDelay) = try runBlocking {
            let relay = try await FailoverRelay.start()
            var results: [[Double]] = []
            var tickDelay = 0.0
            for scenario in scenarios {
                var times: [Double] = []
                for _ in 0..<repetitions {
                    let run: (gap: MediaTime, maximumTickDelay: Double)
                    do {
                        run = try await FailoverRun.measure(
                            fallback: scenario.fallback, configuration: scenario.configuration, warmup: warmupTime,
                            relay: relay)
                    } catch let error as FailoverRun.NoFailover {
                        throw FailoverRun.NoFailover(description: "failover \(scenario.name): \(error)")
                    }
                    times.append(run.gap.milliseconds)
                    tickDelay = max(tickDelay, run.maximumTickDelay)
                }
                results.append(times)
            }
            await relay.server.shutdown()
            return (results, tickDelay)
        }

        var report = BenchmarkReport(bench: "failover")
        let baseline = results[baselineIndex]
        for (index, (scenario, times)) in zip(scenarios, results).enumerated() {
            let isBaseline = index == baselineIndex
            report.add(
                "failover \(scenario.name), median", median(times), unit: "ms",
                baseline: isBaseline ? nil : median(baseline))
            report.add("failover \(scenario.name), p95", percentile(times, 0.95), unit: "ms")
            // Every scenario but the conventional baseline must fail over within a second.
            report.add(
                "failover \(scenario.name), max", times.max() ?? 0, unit: "ms", target: isBaseline ? nil : .below(1_000)
            )
        }
        // How late the driver's 10 ms ticks ran: a failover can take no less than this on a loaded machine.
        report.add("driver tick delay, max", tickDelay, unit: "ms")
        if !report.finish() { throw ExitCode.failure }
    }
}

/// One repetition: two peers, the failure, the measured gap.
enum FailoverRun {
    struct NoFailover: Error, CustomStringConvertible {
        var description: String
    }

    static func measure(
        fallback: FailoverPeer.Fallback, configuration: PathSelectorConfiguration, warmup: MediaTime,
        relay: FailoverRelay
    ) async throws -> (gap: MediaTime, maximumTickDelay: Double) {
        var maximumLateness = 0.0
        let a = FailoverPeer(fallback: fallback, name: "a", peerName: "b")
        let b = FailoverPeer(fallback: fallback, name: "b", peerName: "a")
        try await a.bindSockets()
        try await b.bindSockets()
        defer {
            let sockets = a.allSockets + b.allSockets
            let clients = a.allRelayClients + b.allRelayClients
            Task {
                for socket in sockets { await socket.close() }
                for client in clients { await client.close() }
            }
        }
        if fallback.usesRelay {
            let match = "failover-\(UInt64.random(in: 0...UInt64.max))"
            try await a.joinRelay(relay, match: match)
            try await b.joinRelay(relay, match: match)
            let joinedBy = MediaTime.monotonicNow() + 10 * MediaTime.nanosecondsPerSecond
            while !(a.relayJoined && b.relayJoined) {
                guard MediaTime.monotonicNow() < joinedBy else {
                    throw NoFailover(description: "the relay clients did not join within 10 s")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        let start = MediaTime.monotonicNow()
        a.connect(to: b, configuration: configuration, now: start)
        b.connect(to: a, configuration: configuration, now: start)

        let clock = ContinuousClock()
        var deadline = clock.now
        var tickCount = 0
        var failedAt: MediaTime?
        var victim: Int?
        while true {
            deadline += .milliseconds(10)
            try await Task.sleep(until: deadline, clock: clock)
            let now = MediaTime.monotonicNow()
            let lateness = clock.now - deadline
            maximumLateness = max(
                maximumLateness,
                Double(lateness.components.attoseconds) / 1e15
                    + Double(lateness.components.seconds) * 1e3)
            tickCount += 1
            for peer in [a, b] {
                peer.tick(now: now, sendVoice: tickCount % 2 == 0)
            }
            if failedAt == nil, now - start >= warmup {
                // On a loaded machine the driver can stall long enough for every route to look dead;
                // wait for the call to recover rather than fail a route that is not in use.
                // (Also wait for voice on the route: without direct candidates, the relay routes only
                // become active once the direct check time is over.)
                guard let index = a.socketCarryingVoice(), b.socketCarryingVoice() != nil,
                    b.voiceArrivals().contains(where: { $0.socket == index })
                else {
                    if now - start > warmup + 10 * MediaTime.nanosecondsPerSecond {
                        throw NoFailover(
                            description: "no route was active after the warm-up (A: \(a.stateDescription), B: "
                                + "\(b.stateDescription))")
                    }
                    continue
                }
                victim = index
                b.blackHole(socket: index)
                failedAt = now
            }
            if let failedAt, let victim {
                let log = b.voiceArrivals()
                if let firstNew = log.first(where: { $0.time > failedAt && $0.socket != victim }) {
                    guard let lastOld = log.last(where: { $0.socket == victim }) else {
                        throw NoFailover(description: "no voice arrived on the failed route before it failed")
                    }
                    return (firstNew.time - lastOld.time, maximumLateness)
                }
                if now - failedAt > 15 * MediaTime.nanosecondsPerSecond {
                    throw NoFailover(description: "voice did not resume within 15 s of the failure")
                }
            }
        }
    }
}

/// One side of the benchmark call: its sockets (one per route) and its selector.
///
/// Thread contract: the selector and logs sit behind mutexes, because datagrams arrive on NIO
/// event loop threads while the driver ticks from its own task.
final class FailoverPeer: Sendable {
    enum Fallback: Sendable {
        /// Two direct pairs (sockets 0 and 1), no app-carried route.
        case secondDirect
        /// One direct pair (socket 0) and app-carried (socket 1).
        case appCarried
        /// One direct pair (socket 0) and the relay over UDP ("socket" 1).
        case relayUDP
        /// The relay over UDP ("socket" 0) and over TCP ("socket" 1), no direct pair.
        case relayTCP

        var usesRelay: Bool { self == .relayUDP || self == .relayTCP }

        /// The relay transports, by the socket index they stand for.
        var relayRoutes: [Int: PathRoute] {
            switch self {
            case .secondDirect, .appCarried: [:]
            case .relayUDP: [1: .relayUDP]
            case .relayTCP: [0: .relayUDP, 1: .relayTCP]
            }
        }
    }

    enum DatagramKind: UInt8 {
        case probe = 1
        case reply = 2
        case voice = 3
    }

    let fallback: Fallback
    /// `fallback.relayRoutes`, built once: every send looks a route up in it.
    private let relayRoutes: [Int: PathRoute]
    private let name: String
    private let mediaID: MediaID
    private let peerMediaID: MediaID
    private let relayClients = Mutex<[PathRoute: RelayClient]>([:])
    private let relayCounter = Atomic<UInt64>(0)
    private let sockets = Mutex<[UDPEndpoint]>([])
    private let remoteAddresses = Mutex<[PeerAddress]>([])
    private let selector = Mutex<PathSelector?>(nil)
    private let blackHoled = Atomic<Int>(-1)
    private let arrivals = Mutex<[(time: MediaTime, socket: Int)]>([])

    init(fallback: Fallback, name: String, peerName: String) {
        self.fallback = fallback
        relayRoutes = fallback.relayRoutes
        self.name = name
        mediaID = ParticipantID(name).mediaID
        peerMediaID = ParticipantID(peerName).mediaID
    }

    var allSockets: [UDPEndpoint] { sockets.withLock { $0 } }
    var allRelayClients: [RelayClient] { relayClients.withLock { Array($0.values) } }
    var relayJoined: Bool {
        relayClients.withLock { $0.count == relayRoutes.count && $0.values.allSatisfy(\.state.isJoined) }
    }

    /// Joins `match` on the relay with one client per relay route of the scenario.
    func joinRelay(_ relay: FailoverRelay, match: String) async throws {
        for (index, route) in relayRoutes {
            let configuration = RelayClientConfiguration(
                host: "127.0.0.1", port: relay.port, transport: route == .relayTCP ? .tcp : .udp,
                token: try relay.token(match: match, participant: name), participant: name, channels: [1])
            let client = try await RelayClient.connect(
                configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                onDatagram: { [self] envelope in
                    let header = SealedEnvelopeHeader.encodedBytes
                    let tag = SealedEnvelopeHeader.tagBytes
                    guard envelope.count > header + tag else { return }
                    receive(Array(envelope[header..<(envelope.count - tag)]), on: route, socket: index)
                })
            relayClients.withLock { $0[route] = client }
        }
    }

    var localAddresses: [PeerAddress] {
        allSockets.map { try! PeerAddress(host: "127.0.0.1", port: $0.localPort) }
    }

    func bindSockets() async throws {
        for index in 0..<2 {
            let socket = try await UDPEndpoint.bind(host: "127.0.0.1") { [self] bytes, source in
                receive(bytes, from: source, socket: index)
            }
            sockets.withLock { $0.append(socket) }
        }
    }

    func connect(to peer: FailoverPeer, configuration: PathSelectorConfiguration, now: MediaTime) {
        let remote = peer.localAddresses
        remoteAddresses.withLock { $0 = remote }
        let local = localAddresses
        let directCount: Int =
            switch fallback {
            case .secondDirect: 2
            case .appCarried, .relayUDP: 1
            case .relayTCP: 0
            }
        var selector = PathSelector(
            configuration: configuration, localCandidates: Array(local.prefix(directCount)),
            appCarriedAvailable: fallback == .appCarried, now: now,
            firstTransaction: UInt64.random(in: 1...UInt64.max / 2))
        selector.addRemoteCandidates(Array(remote.prefix(directCount)), now: now)
        for route in relayRoutes.values { selector.setRelayAvailable(route.kind, true, now: now) }
        self.selector.withLock { $0 = selector }
    }

    var stateDescription: String {
        selector.withLock { selector in
            guard let selector else { return "not connected" }
            return "\(selector.state), routes \(selector.routes), unmatched replies \(selector.unmatchedReplies)"
        }
    }

    func blackHole(socket: Int) {
        blackHoled.store(socket, ordering: .relaxed)
    }

    func voiceArrivals() -> [(time: MediaTime, socket: Int)] {
        arrivals.withLock { $0 }
    }

    /// The socket index on the peer's side that this side's voice goes to.
    func socketCarryingVoice() -> Int? {
        guard let route = selector.withLock({ $0?.activeRoute }) else { return nil }
        return socketIndex(for: route)
    }

    func tick(now: MediaTime, sendVoice: Bool) {
        let (actions, route) = selector.withLock { selector -> ([PathAction], PathRoute?) in
            guard selector != nil else { return ([], nil) }
            return (selector!.tick(now: now), selector!.activeRoute)
        }
        perform(actions)
        if sendVoice, let route {
            send([DatagramKind.voice.rawValue] + [UInt8](repeating: 0x55, count: 59), on: route)
        }
    }

    private func receive(_ bytes: [UInt8], from source: PeerAddress, socket: Int) {
        receive(bytes, on: fallback == .appCarried && socket == 1 ? .appCarried : .direct(source), socket: socket)
    }

    private func receive(_ bytes: [UInt8], on route: PathRoute, socket: Int) {
        guard blackHoled.load(ordering: .relaxed) != socket, let first = bytes.first,
            let kind = DatagramKind(rawValue: first)
        else { return }
        let now = MediaTime.monotonicNow()
        switch kind {
        case .probe:
            guard let probe = try? ConnectivityProbe(parsing: bytes.dropFirst()) else { return }
            perform(selector.withLock { $0?.receivedProbe(probe, on: route, now: now) ?? [] })
        case .reply:
            guard let probe = try? ConnectivityProbe(parsing: bytes.dropFirst()) else { return }
            selector.withLock { $0?.receivedProbeReply(probe, on: route, now: now) }
        case .voice:
            selector.withLock { $0?.receivedTraffic(on: route, now: now) }
            arrivals.withLock { $0.append((now, socket)) }
        }
    }

    private func perform(_ actions: [PathAction]) {
        for action in actions {
            switch action {
            case .sendProbe(let probe, let route): send([DatagramKind.probe.rawValue] + probe.bytes, on: route)
            case .sendProbeReply(let probe, let route): send([DatagramKind.reply.rawValue] + probe.bytes, on: route)
            case .routeChanged, .peerGone: break
            }
        }
    }

    private func socketIndex(for route: PathRoute) -> Int? {
        switch route {
        case .direct(let address): remoteAddresses.withLock { $0.firstIndex(of: address) }
        case .appCarried: fallback == .appCarried ? 1 : nil
        case .relayUDP, .relayTCP: relayRoutes.first { $0.value == route }?.key
        }
    }

    /// Sends from this side's socket of the route to the peer's socket of the same index.
    private func send(_ datagram: [UInt8], on route: PathRoute) {
        guard let index = socketIndex(for: route), blackHoled.load(ordering: .relaxed) != index else { return }
        if let client = relayClients.withLock({ $0[route] }) {
            client.send(envelope(datagram))
            return
        }
        let socket = sockets.withLock { $0[index] }
        let target = remoteAddresses.withLock { $0[index] }
        socket.send(datagram, to: target)
    }
}

extension FailoverPeer {
    /// `datagram` behind a sealed envelope's clear header addressed to the peer (and a tag's worth
    /// of bytes), which is all the relay reads; nothing is encrypted.
    fileprivate func envelope(_ datagram: [UInt8]) -> [UInt8] {
        let counter = relayCounter.wrappingAdd(1, ordering: .relaxed).newValue
        var bytes = [UInt8](
            repeating: 0, count: SealedEnvelopeHeader.encodedBytes + datagram.count + SealedEnvelopeHeader.tagBytes)
        let header = SealedEnvelopeHeader(
            content: datagram.first == DatagramKind.voice.rawValue ? .voice : .probe, channel: 1, sender: mediaID,
            destination: peerMediaID, epoch: 0, counter: counter)
        bytes.withUnsafeMutableBytes { try? header.write(into: $0) }
        bytes.replaceSubrange(
            SealedEnvelopeHeader.encodedBytes..<(SealedEnvelopeHeader.encodedBytes + datagram.count), with: datagram)
        return bytes
    }
}

/// The relay the relay scenarios fail over to, in this process on 127.0.0.1.
struct FailoverRelay: Sendable {
    let server: RelayServer
    let port: Int
    let secret: RelaySecret

    static func start() async throws -> FailoverRelay {
        let secret = RelaySecret.random()
        let server = RelayServer(
            configuration: RelayConfiguration(host: "127.0.0.1", secret: secret),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let port = try await server.start()
        return FailoverRelay(server: server, port: port, secret: secret)
    }

    func token(match: String, participant: String) throws -> String {
        try RelayToken.sign(
            match: match, participant: participant, expiry: UInt64(Date().timeIntervalSince1970) + 3600,
            secret: secret
        ).text
    }
}
