import Foundation
import Synchronization
import Testing
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceRelay
import VoiceRelayClient
import VoiceTestSupport
import VoiceTransport
import VoiceWire

@Suite struct RelayMatchSignallingTests {
    @Test func twoEnginesMeetThroughTheRelayAndTalkOverDirectUDP() async throws {
        let secret = RelaySecret.random()
        let relay = RelayServer(configuration: RelayConfiguration(host: "127.0.0.1", port: 0, secret: secret))
        let port = try await relay.start()
        let clock = ManualClock(start: MediaTime.nanosecondsPerSecond)
        let expiry = UInt64(Date().timeIntervalSince1970) + 3600

        struct Player {
            let engine: VoiceEngine
            let network: UDPNetwork
            let client: RelayMatchClient
            let match: Match
            let team: VoiceChannel
            let events: EventLog<MatchEvent>
        }
        func player(_ name: ParticipantID) async throws -> Player {
            let network = try await UDPNetwork.bind(host: "127.0.0.1")
            let engine = try VoiceEngine(participant: name, network: network, clock: clock)
            network.deliver(to: engine)
            let token: RelayToken = try RelayToken.sign(
                match: "arena", participant: name.rawValue, expiry: expiry, secret: secret)
            let client = try await RelayMatchClient.connect(
                host: "127.0.0.1", port: port, token: token.text, participant: name)
            let events = EventLog<MatchEvent>()
            // Nobody tells the player who else is in the match: the relay's roster does.
            let match = try Match(engine: engine, client: client, matchID: "arena", players: []) { event in
                events.append(event)
            }
            client.attach(match)
            let team = try match.voiceChat(named: "team")
            try team.start()
            return Player(engine: engine, network: network, client: client, match: match, team: team, events: events)
        }
        let alice = try await player("alice")
        let bob = try await player("bob")
        try alice.team.setActive(true)

        // 5 s of match, paced at a few times real speed so signalling and datagrams arrive between frames.
        let samples = FrameDuration.ms20.engineFrames
        var heard: [Float] = []
        var output = [Float](repeating: 0, count: samples)
        for frame in 0..<250 {
            clock.advance(by: FrameDuration.ms20.nanoseconds)
            let tone = (0..<samples).map { index -> Float in
                let sample = frame * samples + index
                return sample % 24_000 < 19_200 ? 0.3 * Float(sin(2 * Double.pi * 700 * Double(sample) / 48_000)) : 0
            }
            tone.withUnsafeBufferPointer { captured in
                output.withUnsafeMutableBufferPointer {
                    alice.engine.tick(at: clock.now, captured: captured, output: $0)
                }
            }
            output.withUnsafeMutableBufferPointer { bob.engine.tick(at: clock.now, captured: nil, output: $0) }
            heard += output
            try await Task.sleep(for: .milliseconds(4))
        }

        #expect(alice.client.state == .joined && bob.client.state == .joined)
        #expect(bob.match.path(to: "alice") == .direct)
        #expect(alice.match.path(to: "bob") == .direct)
        #expect(alice.events.withLock { $0 }.contains(.playerConnection(player: "bob", connected: true)))
        let lastSecond = heard.suffix(48_000)
        let rms = (lastSecond.reduce(0) { $0 + Double($1 * $1) } / Double(lastSecond.count)).squareRoot()
        #expect(rms > 0.05)
        #expect(bob.team.playerStates["alice"] == .speaking || bob.team.playerStates["alice"] == .silent)
        // (A first probe may beat the keys, which come through the relay, so unopened datagrams can occur.)
        #expect(bob.engine.counters.signallingRejected == 0 && alice.engine.counters.signallingRejected == 0)
        let statistics = try await relay.admin.statistics()
        #expect(statistics.counters.signalsForwarded > 0)
        // Voice went directly, not through the relay.
        #expect(statistics.counters.packetsForwarded == 0)

        // Bob leaves the relay: alice's match learns he is gone.
        await bob.client.close()
        #expect(
            await eventually { alice.team.playerStates["bob"] == .disconnected }, "alice does not see bob disconnected")
        alice.match.disconnect()
        bob.match.disconnect()
        await alice.client.close()
        await alice.network.close()
        await bob.network.close()
        await relay.shutdown()
    }
}
