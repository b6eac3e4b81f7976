import Testing
import VoiceCore
import VoiceEngine
import VoiceRelay
import VoiceRelayClient
import VoiceSimulation
import VoiceTestHarness
import VoiceTestSupport
import VoiceTransport
import VoiceWire

/// Matches whose voice goes through a real relay on loopback, paced in real time.
@Suite(.serialized) struct RelayRouteTests {
    @Test func relayAsPrimaryCarriesEachChannelToItsListenersAndDropsMutedPlayers() async throws {
        let relayWorld = try await RelayWorld.start()
        let players = try ["alice", "bob", "carol"].enumerated().map { index, name in
            try relayWorld.participant(name, index: index)
        }
        let (alice, bob, carol) = (players[0], players[1], players[2])
        var red: [ParticipantID: VoiceChannel] = [:]
        var blue: [ParticipantID: VoiceChannel] = [:]
        for player in players {
            let match = try player.join(
                "arena", players: players.map(\.name), relay: try relayWorld.options(player.name))
            red[player.name] = try match.voiceChat(named: "red")
            blue[player.name] = try match.voiceChat(named: "blue")
        }
        // Red: everyone; blue: bob and carol. Alice talks in red, carol in blue, bob listens.
        for name: ParticipantID in ["alice", "bob", "carol"] { try red[name]?.start() }
        for name: ParticipantID in ["bob", "carol"] { try blue[name]?.start() }
        try red["alice"]?.setActive(true)
        try blue["carol"]?.setActive(true)
        bob.isTalking = false

        try await relayWorld.run(until: "every player reaches every other through the relay", players) {
            players.allSatisfy { player in
                players.allSatisfy { $0 === player || player.path(to: $0.name) == .relayUDP }
            }
        }
        try await relayWorld.run(seconds: 2.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1.5) > 0.05)
        #expect(bob.heardLevel(of: carol.frequency, lastSeconds: 1.5) > 0.05)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1.5) > 0.05)
        #expect(alice.heardLevel(of: carol.frequency, lastSeconds: 1.5) < 0.01)
        // No player's address was offered or used: everything went through the relay.
        for player in players {
            #expect(player.engine.counters.datagramsSent["direct"] == nil)
            #expect(player.engine.statistics().allSatisfy { $0.path == .relayUDP })
        }
        let redNumber = try #require(red["bob"]?.number)
        let blueNumber = try #require(blue["bob"]?.number)
        #expect(try await relayWorld.member("bob").channels.sorted() == [redNumber, blueNumber].sorted())
        #expect(try await relayWorld.member("alice").channels == [redNumber])

        // Alice's voice leaves her once and the relay copies it to bob and carol.
        let fannedOut = try await forwardedPerReceived("alice", relayWorld, players)
        #expect(fannedOut > 1.5)

        // Bob mutes alice wherever he listens: the relay stops forwarding her voice to him.
        try red["bob"]?.setPlayer("alice", muted: true)
        try await relayWorld.run(seconds: 0.2, players)
        #expect(try await relayWorld.member("bob").muted.isEmpty, "muted in one of two channels only")
        try blue["bob"]?.setPlayer("alice", muted: true)
        try await relayWorld.run(until: "the relay knows bob muted alice", players) {
            try await relayWorld.member("bob").muted == [ParticipantID("alice").mediaID]
        }
        let afterMute = try await forwardedPerReceived("alice", relayWorld, players)
        #expect(afterMute < 1.3)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) < 0.01)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        #expect(bob.heardLevel(of: carol.frequency, lastSeconds: 1) > 0.05)
        await relayWorld.shutdown(players)
    }

    /// A positional channel through the relay: each client tells the relay where it stands and
    /// its range, and the relay forwards voice to a listener only from players within it.
    @Test func theRelayForwardsAPositionalChannelOnlyToListenersInRange() async throws {
        let relayWorld = try await RelayWorld.start()
        let players = try ["alice", "bob", "carol"].enumerated().map { index, name in
            try relayWorld.participant(name, index: index)
        }
        let (alice, bob, carol) = (players[0], players[1], players[2])
        let settings = try ProximitySettings(range: 40, referenceDistance: 10)
        var matches: [Match] = []
        for player in players {
            let match = try player.join(
                "arena", players: players.map(\.name), relay: try relayWorld.options(player.name))
            let field = try match.voiceChat(named: "field")
            try field.start()
            try field.setActive(true)
            try field.setProximity(settings)
            matches.append(match)
        }
        carol.isTalking = false
        // carol at the origin, alice 5 away, bob 100 away; every game knows where everyone is.
        let positions: [Float] = [5, 100, 0]
        for (match, own) in zip(matches, positions) {
            try match.setPosition(VoicePosition(x: own, y: 0, z: 0))
            for (other, x) in zip(players, positions) where other.name != match.engine.participant {
                try match.setPosition(VoicePosition(x: x, y: 0, z: 0), of: other.name)
            }
        }
        try await relayWorld.run(until: "the relay knows where everyone stands and their ranges", players) {
            let members = (try? await relayWorld.relay.admin.participants(match: "arena")) ?? []
            return members.count == 3 && members.allSatisfy { $0.position != nil && $0.hearingRanges.count == 1 }
        }
        try await relayWorld.run(seconds: 2.5, players)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1.5) > 0.05)
        #expect(carol.heardLevel(of: bob.frequency, lastSeconds: 1.5) < 0.002)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1.5) < 0.002)
        let statistics = try await relayWorld.relay.admin.statistics()
        #expect(statistics.counters.packetsOutOfRange > 100, "bob's voice kept from alice and carol at the relay")
        #expect(try await relayWorld.member("carol").position == VoicePosition(x: 0, y: 0, z: 0))

        // bob walks up to carol: the relay lets him through to her.
        try matches[1].setPosition(VoicePosition(x: 10, y: 0, z: 0))
        for match in [matches[0], matches[2]] { try match.setPosition(VoicePosition(x: 10, y: 0, z: 0), of: "bob") }
        try await relayWorld.run(seconds: 2.5, players)
        #expect(carol.heardLevel(of: bob.frequency, lastSeconds: 1.5) > 0.01)
        await relayWorld.shutdown(players)
    }

    /// A player removed from the match gets none of the voice sent after, although he is still
    /// a member of the channel at the relay and holds the key in use until the next one is: while
    /// the key changes, the voice goes to each remaining listener addressed to it.
    @Test func aRemovedPlayerGetsNoVoiceWhileTheKeyChanges() async throws {
        let relayWorld = try await RelayWorld.start()
        let players = try ["alice", "bob", "carol", "dave"].enumerated().map { index, name in
            try relayWorld.participant(name, index: index)
        }
        let (alice, bob, dave) = (players[0], players[1], players[3])
        var red: [ParticipantID: VoiceChannel] = [:]
        for player in players {
            let match = try player.join(
                "arena", players: players.map(\.name), relay: try relayWorld.options(player.name))
            red[player.name] = try match.voiceChat(named: "red")
            try red[player.name]?.start()
        }
        try red["alice"]?.setActive(true)
        for player in players.dropFirst() { player.isTalking = false }
        try await relayWorld.run(until: "alice reaches everyone through the relay", players) {
            players.dropFirst().allSatisfy { alice.path(to: $0.name) == .relayUDP }
        }
        try await relayWorld.run(seconds: 1.5, players)
        #expect(dave.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)

        func voiceDaveReceived() -> Int {
            dave.engine.statistics().filter { $0.participant == "alice" }
                .flatMap { $0.streams.values }.reduce(0) { $0 + $1.receive.packetsReceived }
        }
        let watch = MachineStallWatch()
        let before = voiceDaveReceived()
        // Carol's app stops carrying signalling, so the new key waits for her confirmation.
        relayWorld.world.receivers["carol"] = { _ in }
        try #require(alice.match).removePlayers(["dave"])
        try await relayWorld.run(seconds: 0.5, players)
        let landed = voiceDaveReceived()
        try await relayWorld.run(seconds: 1, players)
        let machine = watch.finish()
        #expect(voiceDaveReceived() == landed, "nothing once what was in flight has landed")
        // In flight: a few frames, and those a stalled relay or receiver held back (a frame is 20 ms).
        let heldBack = Int(machine.longestStallSeconds * 1000 / SimulatedWorld.frame.milliseconds)
        #expect(landed <= before + 3 + heldBack, "only what was in flight; machine: \(machine)")
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        await relayWorld.shutdown(players)
    }

    /// The game server's mute and move, made at the relay, are followed by the engine on every
    /// path: a muted player is not heard even over the direct path the relay never sees, and a
    /// moved player's own channels become the one it was moved to.
    @Test func theGameServersMuteAndMoveHoldOnEveryPath() async throws {
        let relayWorld = try await RelayWorld.start()
        let alice = try relayWorld.participant("alice", index: 0)
        let bob = try relayWorld.participant("bob", index: 1)
        let players = [alice, bob]
        var red: [ParticipantID: VoiceChannel] = [:]
        var blue: [ParticipantID: VoiceChannel] = [:]
        for player in players {
            let match = try player.join(
                "arena", players: ["alice", "bob"], relay: try relayWorld.options(player.name, isPrimary: false))
            red[player.name] = try match.voiceChat(named: "red")
            blue[player.name] = try match.voiceChat(named: "blue")
            try red[player.name]?.start()
        }
        try red["alice"]?.setActive(true)
        bob.isTalking = false
        try await relayWorld.run(until: "alice reaches bob directly and both are at the relay", players) {
            let atRelay = (try? await relayWorld.relay.admin.participants(match: "arena"))?.count ?? 0
            return alice.path(to: "bob") == .direct && atRelay == 2
        }
        try await relayWorld.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)

        try await relayWorld.relay.admin.setServerMute(true, participant: "alice", match: "arena")
        try await relayWorld.run(until: "alice hears she is muted", players) {
            alice.matchEvents.withLock { $0 }.contains(.serverMuted(true))
        }
        try await relayWorld.run(seconds: 1.5, players)
        #expect(alice.path(to: "bob") == .direct)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) < 0.01)
        try await relayWorld.relay.admin.setServerMute(false, participant: "alice", match: "arena")
        try await relayWorld.run(until: "alice hears she is unmuted", players) {
            alice.matchEvents.withLock { $0 }.contains(.serverMuted(false))
        }
        try await relayWorld.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)

        // Bob is moved to blue: red stops for him (alice, talking there, is no longer heard) and
        // blue starts with his microphone, as his interest at the relay says.
        let blueNumber = try #require(blue["bob"]?.number)
        try await relayWorld.relay.admin.move(participant: "bob", match: "arena", toChannel: blueNumber)
        try await relayWorld.run(until: "bob hears he was moved", players) {
            bob.matchEvents.withLock { $0 }.contains(.moved(channel: "blue"))
        }
        #expect(red["bob"]?.isStarted == false)
        #expect(blue["bob"]?.isStarted == true && blue["bob"]?.isActive == true)
        try await relayWorld.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) < 0.01)
        #expect(try await relayWorld.member("bob").channels == [blueNumber])
        await relayWorld.shutdown(players)
    }

    /// Copies the relay forwarded per envelope `participant` sent to it, over one second.
    private func forwardedPerReceived(
        _ participant: ParticipantID, _ relayWorld: RelayWorld, _ players: [SimulatedParticipant]
    ) async throws -> Double {
        let before = try await relayWorld.member(participant).counters
        try await relayWorld.run(seconds: 1, players)
        let after = try await relayWorld.member(participant).counters
        let received = after.packetsReceived - before.packetsReceived
        try #require(received > 30, "\(participant) sent \(received) envelopes in a second")
        return Double(after.packetsForwarded - before.packetsForwarded) / Double(received)
    }

    @Test func forcedRelayTCPTalksWithAPlayerOnRelayUDP() async throws {
        let relayWorld = try await RelayWorld.start()
        var forced = SimulatedWorld.fastConfiguration
        forced.forcedPath = .relayTCP
        let alice = try relayWorld.participant("alice", index: 0, configuration: forced)
        let bob = try relayWorld.participant("bob", index: 1)
        let players = [alice, bob]
        var bobOptions = try relayWorld.options("bob")
        bobOptions.allowsTCP = false
        let aliceMatch = try alice.join(
            "arena", players: ["alice", "bob"], relay: try relayWorld.options("alice", isPrimary: false))
        let bobMatch = try bob.join("arena", players: ["alice", "bob"], relay: bobOptions)
        for match in [aliceMatch, bobMatch] {
            let channel = try match.voiceChat(named: "team")
            try channel.start()
            try channel.setActive(true)
        }

        try await relayWorld.run(until: "alice talks over relay TCP and bob over relay UDP", players) {
            alice.path(to: "bob") == .relayTCP && bob.path(to: "alice") == .relayUDP
        }
        try await relayWorld.run(seconds: 2, players)
        #expect(alice.path(to: "bob") == .relayTCP)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1) > 0.05)
        let aliceAtRelay = try await relayWorld.member("alice")
        #expect(aliceAtRelay.overTCP && !aliceAtRelay.overUDP)
        let bobAtRelay = try await relayWorld.member("bob")
        #expect(bobAtRelay.overUDP && !bobAtRelay.overTCP)
        #expect(alice.engine.counters.datagramsSent["relay-tcp", default: 0] > 50)
        #expect(alice.engine.counters.datagramsSent["relay"] == nil)
        #expect(alice.engine.statistics().first?.path == .relayTCP)
        await relayWorld.shutdown(players)
    }

    @Test func aRefusedTokenIsReportedAndNothingGoesThroughTheRelay() async throws {
        let relayWorld = try await RelayWorld.start()
        let alice = try relayWorld.participant("alice", index: 0)
        var options = try relayWorld.options("alice")
        options.token = try relayWorld.token("alice", secret: RelaySecret.random())
        options.allowsTCP = false
        _ = try alice.join("arena", players: ["alice", "bob"], relay: options)
        try await relayWorld.run(until: "the refusal is reported", [alice]) {
            alice.matchEvents.withLock { $0 }.contains(.relayFailed(path: .relayUDP, .refused(.badSignature)))
        }
        let statistics = try await relayWorld.relay.admin.statistics()
        #expect(statistics.refusals[.badSignature, default: 0] >= 1)
        #expect(statistics.participants == 0)
        await relayWorld.shutdown([alice])
    }

    @Test func unusableRelayOptionsAreRefusedWithAReason() throws {
        let world = SimulatedWorld()
        let alice = try world.participant("alice", index: 0)
        var options = RelayOptions(host: "127.0.0.1", port: 0, token: "t")
        #expect(throws: VoiceChatError.outOfRange("relay port 0 is outside 1…65535")) {
            try alice.join("arena", players: ["alice", "bob"], relay: options)
        }
        options.port = 4000
        options.allowsUDP = false
        options.allowsTCP = false
        #expect(throws: VoiceChatError.self) { try alice.join("arena", players: ["alice", "bob"], relay: options) }
    }
}
