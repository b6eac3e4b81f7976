import Testing
import VoiceCore
import VoiceEngine
import VoiceRelay
import VoiceRelayClient
import VoiceTestSupport
import VoiceTransport
import VoiceWire

/// A path dying mid-match: voice moves to the relay (or from relay UDP to relay TCP) within about
/// a second, measured on the engines' own clock, and the match goes on. Paced in real time.
@Suite(.serialized) struct RelayFailoverTests {
    /// Starts a two-player match talking in one channel.
    private func talk(_ players: [SimulatedParticipant], relay: (SimulatedParticipant) throws -> RelayOptions) throws {
        for player in players {
            let match = try player.join("arena", players: players.map(\.name), relay: try relay(player))
            let channel = try match.voiceChat(named: "team")
            try channel.start()
            try channel.setActive(true)
        }
    }

    /// Runs frame by frame until `condition` holds; returns the engine time it took.
    private func timeUntil(
        _ what: String, _ relayWorld: RelayWorld, _ players: [SimulatedParticipant], _ condition: () -> Bool
    ) async throws -> MediaTime {
        let start = relayWorld.world.clock.now
        try await relayWorld.run(until: what, within: 10, players) { condition() }
        return relayWorld.world.clock.now - start
    }

    @Test func directPathDyingMovesVoiceToTheRelayWithinASecondAndBack() async throws {
        let relayWorld = try await RelayWorld.start()
        let alice = try relayWorld.participant("alice", index: 0)
        let bob = try relayWorld.participant("bob", index: 1)
        let players = [alice, bob]
        try talk(players) { try relayWorld.options($0.name, isPrimary: false) }
        try await relayWorld.run(until: "the call takes the direct path", players) {
            alice.path(to: "bob") == .direct && bob.path(to: "alice") == .direct
        }
        // Long enough for both relay transports to join and answer keepalives.
        try await relayWorld.run(seconds: 2, players)
        #expect(alice.path(to: "bob") == .direct)

        _ = relayWorld.world.blocked.withLock { $0.insert(alice.network.address) }
        let failover = try await timeUntil("both move to the relay", relayWorld, players) {
            alice.path(to: "bob") == .relayUDP && bob.path(to: "alice") == .relayUDP
        }
        #expect(failover < MediaTime.milliseconds(1_500), "failover took \(failover.milliseconds) ms")
        try await relayWorld.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1) > 0.05)
        #expect(alice.matchEvents.withLock { $0 }.contains(.pathChanged(player: "bob", path: .relayUDP)))

        relayWorld.world.blocked.withLock { $0.removeAll() }
        try await relayWorld.run(until: "both are back on the direct path", players) {
            alice.path(to: "bob") == .direct && bob.path(to: "alice") == .direct
        }
        try await relayWorld.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        #expect(
            alice.matchEvents.withLock { $0 }.last { if case .pathChanged = $0 { true } else { false } }
                == .pathChanged(player: "bob", path: .direct))
        #expect(!alice.matchEvents.withLock { $0 }.contains(.playerConnection(player: "bob", connected: false)))
        await relayWorld.shutdown(players)
    }

    @Test func relayUDPDyingMovesVoiceToRelayTCPWithinASecond() async throws {
        let relayWorld = try await RelayWorld.start()
        let proxy = try await BlockableUDPProxy.start(to: relayWorld.port)
        let alice = try relayWorld.participant("alice", index: 0)
        let bob = try relayWorld.participant("bob", index: 1)
        let players = [alice, bob]
        try talk(players) { player in
            var options = try relayWorld.options(player.name)
            if player === alice {
                // Alice reaches the relay's UDP through the proxy, its TCP directly.
                options.port = proxy.port
                options.tcpPort = relayWorld.port
            }
            return options
        }
        try await relayWorld.run(until: "both talk over relay UDP with TCP standing by", players) {
            // Nobody may have joined yet, and then the relay knows no such match.
            let members = (try? await relayWorld.relay.admin.participants(match: "arena")) ?? []
            return alice.path(to: "bob") == .relayUDP && bob.path(to: "alice") == .relayUDP
                && members.count == 2 && members.allSatisfy { $0.overUDP && $0.overTCP }
        }
        try await relayWorld.run(seconds: 2, players)

        proxy.setBlocked(true)
        let failover = try await timeUntil("both move to relay TCP", relayWorld, players) {
            alice.path(to: "bob") == .relayTCP && bob.path(to: "alice") == .relayTCP
        }
        #expect(failover < MediaTime.milliseconds(1_500), "failover took \(failover.milliseconds) ms")
        try await relayWorld.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1) > 0.05)
        #expect(!alice.matchEvents.withLock { $0 }.contains(.playerConnection(player: "bob", connected: false)))
        #expect(alice.engine.counters.datagramsSent["relay-tcp", default: 0] > 50)

        // UDP comes back: the relay UDP client joins again and voice returns to it.
        proxy.setBlocked(false)
        try await relayWorld.run(until: "both are back on relay UDP", players) {
            alice.path(to: "bob") == .relayUDP && bob.path(to: "alice") == .relayUDP
        }
        await relayWorld.shutdown(players)
        await proxy.close()
    }
}
