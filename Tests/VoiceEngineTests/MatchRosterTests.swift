import Testing
import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport
import VoiceWire

@Suite struct MatchRosterTests {
    @Test func playerAddedLaterHearsAndIsHeardInTheChannel() throws {
        let world = SimulatedWorld()
        let alice = try world.participant("alice", index: 0)
        let bob = try world.participant("bob", index: 1)
        let aliceMatch = try alice.join("arena", players: ["alice", "bob"])
        let bobMatch = try bob.join("arena", players: ["alice", "bob"])
        let aliceTeam = try aliceMatch.voiceChat(named: "team")
        let bobTeam = try bobMatch.voiceChat(named: "team")
        for channel in [aliceTeam, bobTeam] { try channel.start() }
        try aliceTeam.setActive(true)
        bob.isTalking = false
        world.run(seconds: 1, [alice, bob])

        // Carol arrives: she knows everyone; the others learn of her from the app.
        let carol = try world.participant("carol", index: 2)
        let carolMatch = try carol.join("arena", players: ["alice", "bob", "carol"])
        try aliceMatch.addPlayers(["carol"])
        try bobMatch.addPlayers(["carol", "bob"])
        let carolTeam = try carolMatch.voiceChat(named: "team")
        try carolTeam.start()
        try carolTeam.setActive(true)
        let players = [alice, bob, carol]
        world.run(seconds: 3, players)

        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 2) > 0.05)
        #expect(alice.heardLevel(of: carol.frequency, lastSeconds: 2) > 0.05)
        #expect(bob.heardLevel(of: carol.frequency, lastSeconds: 2) > 0.05)
        #expect(aliceMatch.path(to: "carol") == .direct)
        #expect(aliceTeam.playerStates["carol"] == .speaking)
        #expect(carolTeam.playerStates["alice"] == .speaking)
        #expect(alice.matchEvents.withLock { $0 }.contains(.playerConnection(player: "carol", connected: true)))
        for player in players {
            #expect(player.engine.counters.signallingRejected == 0)
            #expect(player.engine.counters.unopenedDatagrams == 0)
        }
    }

    @Test func addingAKnownPlayerOrOneselfChangesNothing() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let alice = players[0]
        world.run(seconds: 1, players)
        let signallingToCarol = EventLog<ParticipantID>()
        let deliverToCarol = try #require(world.receivers["carol"])
        world.receivers["carol"] = { delivery in
            if !delivery.realTime { signallingToCarol.append(delivery.from) }
            deliverToCarol(delivery)
        }
        let eventsBefore = alice.matchEvents.withLock { $0.count }
        let match = try #require(alice.match)
        try match.addPlayers(["carol", "alice", "bob"])
        try match.addPlayers(["carol"])
        world.run(seconds: 0.5, players)
        #expect(signallingToCarol.withLock { $0.isEmpty })
        #expect(alice.matchEvents.withLock { $0.count } == eventsBefore)
        #expect(match.path(to: "carol") == .direct)
        // Removing someone who never was a player is a no-op too.
        match.removePlayers(["mallory"])
        world.run(seconds: 0.2, players)
        #expect(signallingToCarol.withLock { $0.isEmpty })
        #expect(throws: VoiceChatError.invalidPlayers("a player ID must be 1…256 bytes")) {
            try match.addPlayers([""])
        }
    }

    @Test func removedPlayerNoLongerHearsAndStatesFollow() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob, carol) = (players[0], players[1], players[2])
        let teams = try players.map { try #require($0.match).voiceChat(named: "team") }
        for team in teams { try team.start() }
        try teams[0].setActive(true)
        bob.isTalking = false
        carol.isTalking = false
        world.run(seconds: 2, players)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        let epochBefore = try #require(lastVoiceEpoch(in: world, from: alice, to: bob))

        // The app says carol is gone (alice and bob are told; carol herself is not).
        try #require(alice.match).removePlayers(["carol"])
        try #require(bob.match).removePlayers(["carol"])
        world.run(seconds: 3, players)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 2) < 0.005)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 2) > 0.05)
        #expect(teams[0].playerStates["carol"] == .disconnected)
        let aliceEvents = alice.matchEvents.withLock { $0 }
        #expect(aliceEvents.contains(.playerConnection(player: "carol", connected: false)))
        #expect(aliceEvents.contains(.playerState(channel: "team", player: "carol", state: .disconnected)))

        // Alice now seals under a new epoch that carol never got: her voice, handed to carol
        // anyway, does not open.
        let epochAfter = try #require(lastVoiceEpoch(in: world, from: alice, to: bob))
        #expect(epochAfter != epochBefore)
        let latest = try #require(
            world.captured.withLock { captured in
                captured.last { $0.from == alice.network.address && $0.to == bob.network.address && isVoice($0.bytes) }
            })
        let unopenedBefore = carol.engine.counters.unopenedDatagrams
        carol.engine.receiveDatagram(latest.bytes, from: alice.network.address)
        #expect(carol.engine.counters.unopenedDatagrams == unopenedBefore + 1)

        // Removing her again changes nothing.
        let count = aliceEvents.count
        try #require(alice.match).removePlayers(["carol"])
        world.run(seconds: 0.2, players)
        #expect(alice.matchEvents.withLock { $0.count } == count)
    }

    /// Two players leave at once: the others move to one new key, not one per departure. A
    /// listener holds two epochs, so two new keys at once made it drop the one the sender still
    /// sealed under until the switch.
    @Test func playersLeavingTogetherCostOneNewKeyAndNoVoice() throws {
        let world = SimulatedWorld()
        let (players, teams) = try fourPlayersHearingAlice(in: world)
        let (alice, bob) = (players[0], players[1])
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        let epochBefore = try #require(lastVoiceEpoch(in: world, from: alice, to: bob))

        try #require(players[2].match).disconnect()
        try #require(players[3].match).disconnect()
        world.run(seconds: 3, Array(players[0...1]))

        #expect(lastVoiceEpoch(in: world, from: alice, to: bob) == epochBefore &+ 1)
        #expect(bob.engine.counters.unopenedDatagrams == 0)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 3) > 0.05)
        #expect(teams[0].playerStates["carol"] == .disconnected)
        #expect(teams[0].playerStates["dave"] == .disconnected)
    }

    /// A player leaves while the rekey for an earlier departure still waits for a confirmation:
    /// the second rekey waits for the first to switch. Handing listeners a third epoch before
    /// the switch pushed out the one the sender still sealed under.
    @Test func aDepartureDuringARekeyWaitsForItAndCostsNoVoice() throws {
        let world = SimulatedWorld()
        let players = try fourPlayersHearingAlice(in: world).players
        let (alice, bob) = (players[0], players[1])
        let epochBefore = try #require(lastVoiceEpoch(in: world, from: alice, to: bob))

        // Dave's app stops handing him signalling, so he never confirms the key carol's departure
        // brought and the rekey waits for him.
        world.receivers["dave"] = { _ in }
        try #require(players[2].match).disconnect()
        world.run(seconds: 0.5, [alice, bob])
        #expect(lastVoiceEpoch(in: world, from: alice, to: bob) == epochBefore)
        try #require(players[3].match).disconnect()
        world.run(seconds: 3, [alice, bob])

        #expect(bob.engine.counters.unopenedDatagrams == 0)
        #expect(lastVoiceEpoch(in: world, from: alice, to: bob) == epochBefore &+ 2)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 2) > 0.05)
    }

    @Test func removedPlayerWhoReturnsWithANewSessionIsHeardAgain() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob, carol) = (players[0], players[1], players[2])
        world.run(seconds: 1, players)
        try #require(carol.match).disconnect()
        world.run(seconds: 0.2, players)
        try #require(alice.match).removePlayers(["carol"])

        let carolMatch = try carol.join("arena", players: ["alice", "bob", "carol"])
        try #require(alice.match).addPlayers(["carol"])
        try #require(bob.match).addPlayers(["carol"])
        let aliceTeam = try #require(alice.match).voiceChat(named: "team")
        let carolTeam = try carolMatch.voiceChat(named: "team")
        try aliceTeam.start()
        try carolTeam.start()
        try carolTeam.setActive(true)
        world.run(seconds: 3, players)
        #expect(alice.heardLevel(of: carol.frequency, lastSeconds: 2) > 0.05)
        #expect(aliceTeam.playerStates["carol"] == .speaking)
    }
}

/// Alice, bob, carol and dave in one match and its channel "team", alice talking, two seconds on.
private func fourPlayersHearingAlice(in world: SimulatedWorld) throws -> (
    players: [SimulatedParticipant], teams: [VoiceChannel]
) {
    let players = try ["alice", "bob", "carol", "dave"].enumerated().map { index, name in
        try world.participant(name, index: index)
    }
    for player in players { _ = try player.join("arena", players: players.map(\.name)) }
    let teams = try players.map { try #require($0.match).voiceChat(named: "team") }
    for team in teams { try team.start() }
    try teams[0].setActive(true)
    for player in players.dropFirst() { player.isTalking = false }
    world.run(seconds: 2, players)
    return (players, teams)
}

private func isVoice(_ datagram: [UInt8]) -> Bool {
    datagram.withUnsafeBytes { (try? SealedEnvelopeHeader(parsing: $0))?.content == .voice }
}

/// The epoch of the last voice envelope `sender` sent `receiver`.
private func lastVoiceEpoch(
    in world: SimulatedWorld, from sender: SimulatedParticipant, to receiver: SimulatedParticipant
)
    -> UInt8?
{
    world.captured.withLock { captured in
        captured.last { $0.from == sender.network.address && $0.to == receiver.network.address && isVoice($0.bytes) }
    }.flatMap { datagram in datagram.bytes.withUnsafeBytes { try? SealedEnvelopeHeader(parsing: $0) }?.epoch }
}
