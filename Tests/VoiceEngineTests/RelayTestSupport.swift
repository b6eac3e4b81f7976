import Foundation
import Logging
import Synchronization
import Testing
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceRelay
import VoiceRelayClient
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport
import VoiceWire

/// A simulated world (virtual clock, app signalling, simulated direct UDP) plus a real relay on
/// 127.0.0.1, run in real time: each 20 ms frame advances the clock by 20 ms and then waits for
/// the wall clock, so that datagrams through the relay's real sockets arrive between frames as
/// they would in a call.
final class RelayWorld: Sendable {
    let world = SimulatedWorld()
    let relay: RelayServer
    let port: Int
    let secret: RelaySecret

    private init(relay: RelayServer, port: Int, secret: RelaySecret) {
        self.relay = relay
        self.port = port
        self.secret = secret
    }

    static func start() async throws -> RelayWorld {
        let secret = RelaySecret.random()
        var logger = Logger(label: "voicechat.relay.test")
        logger.logLevel = .warning
        let relay = RelayServer(configuration: RelayConfiguration(host: "127.0.0.1", secret: secret), logger: logger)
        let port = try await relay.start()
        return RelayWorld(relay: relay, port: port, secret: secret)
    }

    /// A token for `participant` in match "arena", signed with the relay's secret or `secret`.
    func token(_ participant: ParticipantID, secret: RelaySecret? = nil) throws -> String {
        try RelayToken.sign(
            match: "arena", participant: participant.rawValue, expiry: UInt64(Date().timeIntervalSince1970) + 3600,
            secret: secret ?? self.secret
        ).text
    }

    func options(_ participant: ParticipantID, isPrimary: Bool = true) throws -> RelayOptions {
        var options = RelayOptions(host: "127.0.0.1", port: port, token: try token(participant))
        options.isPrimary = isPrimary
        return options
    }

    /// A participant whose app offers no real-time channel, so the relay is the only fallback.
    func participant(
        _ name: ParticipantID, index: Int, configuration: EngineConfiguration = SimulatedWorld.fastConfiguration
    ) throws -> SimulatedParticipant {
        try world.participant(name, index: index, offersRealTime: false, configuration: configuration)
    }

    /// Runs `seconds` of the call, paced by the wall clock.
    func run(seconds: Double, _ participants: [SimulatedParticipant]) async throws {
        let frames = Int((seconds * 1000 / SimulatedWorld.frame.milliseconds).rounded())
        let clock = ContinuousClock()
        var deadline = clock.now
        for _ in 0..<frames {
            world.run(seconds: SimulatedWorld.frame.milliseconds / 1000, participants)
            deadline += .milliseconds(20)
            // Far behind (a loaded machine): carry on from now rather than rush through frames.
            if deadline < clock.now - .milliseconds(100) { deadline = clock.now }
            try await Task.sleep(until: deadline, clock: clock)
        }
    }

    /// Runs the call until `condition` holds, for at most `seconds`; records an issue if it never does.
    func run(
        until what: String, within seconds: Double = 10, _ participants: [SimulatedParticipant],
        _ condition: () async throws -> Bool
    ) async throws {
        var waited = 0.0
        while waited < seconds {
            if try await condition() { return }
            try await run(seconds: 0.1, participants)
            waited += 0.1
        }
        if try await condition() { return }
        Issue.record("timed out waiting until \(what)")
        throw CancellationError()
    }

    /// One member of match "arena" as the relay sees it.
    func member(_ participant: ParticipantID) async throws -> RelayParticipantInfo {
        let members = try await relay.admin.participants(match: "arena")
        return try #require(members.first { $0.participant == participant.rawValue })
    }

    func shutdown(_ participants: [SimulatedParticipant]) async {
        for participant in participants { await participant.match?.leave() }
        await relay.shutdown()
    }
}

extension SimulatedParticipant {
    func path(to player: ParticipantID) -> RealTimePathKind? { match?.path(to: player) }
}

/// A UDP forwarder between one client and the relay that can be made a black hole, as a network
/// that stops carrying UDP (a firewall rule, a broken NAT) would.
final class BlockableUDPProxy: Sendable {
    private let front: UDPEndpoint
    private let back: UDPEndpoint
    private let state: ProxyState

    /// What both sockets consult: whether to drop, and where the client is.
    private final class ProxyState: Sendable {
        let isBlocked = Atomic<Bool>(false)
        let client = Mutex<PeerAddress?>(nil)
        let front = Mutex<UDPEndpoint?>(nil)
    }

    var port: Int { front.localPort }

    private init(front: UDPEndpoint, back: UDPEndpoint, state: ProxyState) {
        self.front = front
        self.back = back
        self.state = state
    }

    static func start(to port: Int) async throws -> BlockableUDPProxy {
        let target = try PeerAddress(host: "127.0.0.1", port: port)
        let state = ProxyState()
        let back = try await UDPEndpoint.bind(host: "127.0.0.1") { datagram, _ in
            guard !state.isBlocked.load(ordering: .relaxed), let client = state.client.withLock({ $0 }) else { return }
            state.front.withLock { $0 }?.send(datagram, to: client)
        }
        let front = try await UDPEndpoint.bind(host: "127.0.0.1") { datagram, source in
            guard !state.isBlocked.load(ordering: .relaxed) else { return }
            state.client.withLock { $0 = source }
            back.send(datagram, to: target)
        }
        state.front.withLock { $0 = front }
        return BlockableUDPProxy(front: front, back: back, state: state)
    }

    func setBlocked(_ blocked: Bool) { state.isBlocked.store(blocked, ordering: .relaxed) }

    func close() async {
        await front.close()
        await back.close()
    }
}
