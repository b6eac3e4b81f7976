import Testing
import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport

@Suite struct MatchChannelTests {
    @Test func playersHearExactlyTheChannelsTheyShareAndTheMicrophoneIsExclusive() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob, carol) = (players[0], players[1], players[2])
        let aliceRed = try #require(alice.match).voiceChat(named: "red")
        let aliceBlue = try #require(alice.match).voiceChat(named: "blue")
        let bobRed = try #require(bob.match).voiceChat(named: "red")
        let bobBlue = try #require(bob.match).voiceChat(named: "blue")
        let carolBlue = try #require(carol.match).voiceChat(named: "blue")
        for channel in [aliceRed, aliceBlue, bobRed, bobBlue, carolBlue] { try channel.start() }
        bob.isTalking = false
        carol.isTalking = false

        try aliceRed.setActive(true)
        world.run(seconds: 3, players)
        #expect(aliceRed.isActive && !aliceBlue.isActive)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 2) > 0.05)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 2) < 0.005)

        // Activating blue takes the microphone from red.
        try aliceBlue.setActive(true)
        world.run(seconds: 2, players)
        #expect(aliceBlue.isActive && !aliceRed.isActive)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1.5) > 0.05)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1.5) > 0.05)

        // Bob mutes alice in blue: he hears nothing of her; carol still does.
        try bobBlue.setPlayer("alice", muted: true)
        world.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) < 0.005)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
        try bobBlue.setPlayer("alice", muted: false)

        // Volume scales what is heard; 0 silences.
        world.run(seconds: 1.5, players)
        let full = carol.heardLevel(of: alice.frequency, lastSeconds: 1)
        try carolBlue.setVolume(0.25)
        world.run(seconds: 1.5, players)
        let quarter = carol.heardLevel(of: alice.frequency, lastSeconds: 1)
        #expect(abs(quarter / full - 0.25) < 0.06)
        try carolBlue.setVolume(0)
        world.run(seconds: 1.5, players)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1) < 0.002)
    }

    @Test func twoSpeakersInTwoChannelsAreMixedForTheListenerInBoth() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob, carol) = (players[0], players[1], players[2])
        let aliceRed = try #require(alice.match).voiceChat(named: "red")
        let bobBlue = try #require(bob.match).voiceChat(named: "blue")
        let carolRed = try #require(carol.match).voiceChat(named: "red")
        let carolBlue = try #require(carol.match).voiceChat(named: "blue")
        for channel in [aliceRed, bobBlue, carolRed, carolBlue] { try channel.start() }
        try aliceRed.setActive(true)
        try bobBlue.setActive(true)
        carol.isTalking = false
        world.run(seconds: 3, players)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 2) > 0.05)
        #expect(carol.heardLevel(of: bob.frequency, lastSeconds: 2) > 0.05)
        // Alice and bob share no channel.
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 2) < 0.005)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 2) < 0.005)
    }

    @Test func stoppedChannelReceivesNothingAndPlayerStatesFollow() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob) = (players[0], players[1])
        let aliceTeam = try #require(alice.match).voiceChat(named: "team")
        let bobTeam = try #require(bob.match).voiceChat(named: "team")
        try aliceTeam.start()
        try bobTeam.start()
        try aliceTeam.setActive(true)
        bob.isTalking = false
        world.run(seconds: 2, players)
        #expect(bobTeam.playerStates["alice"] == .speaking)
        #expect(aliceTeam.playerStates["bob"] == .connected)
        // Carol is reachable but never started "team": not in it, rather than on the way for ever.
        #expect(aliceTeam.playerStates["carol"] == .disconnected)
        #expect(
            bob.matchEvents.withLock { $0 }.contains(.playerState(channel: "team", player: "alice", state: .speaking)))

        func aliceInTeam() -> StreamStatistics? {
            bob.engine.statistics().first { $0.participant == "alice" }?.streams["team"]
        }
        let heardBeforeStop = try #require(aliceInTeam()?.receive.packetsReceived)
        #expect(heardBeforeStop > 50)
        try bobTeam.stop()
        world.run(seconds: 1, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 0.8) < 0.005)
        #expect(aliceTeam.playerStates["bob"] == .disconnected)
        // What was heard before the stop is still reported, as ended (it vanished, and summaries
        // said "nothing received").
        let ended = try #require(aliceInTeam())
        #expect(ended.hasEnded)
        #expect(ended.receive.packetsReceived >= heardBeforeStop)
        #expect(!ended.isSpeaking)

        alice.isTalking = false
        try bobTeam.start()
        world.run(seconds: 2, players)
        #expect(aliceInTeam()?.hasEnded == false)
        #expect(aliceTeam.playerStates["bob"] == .connected)
        #expect(bobTeam.playerStates["alice"] == .silent || bobTeam.playerStates["alice"] == .connected)

        try #require(alice.match).disconnect()
        world.run(seconds: 0.2, players)
        #expect(bobTeam.playerStates["alice"] == .disconnected)
        #expect(bob.matchEvents.withLock { $0 }.contains(.playerConnection(player: "alice", connected: false)))
    }

    @Test func gameDataArrivesReliablyAndUnreliably() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        world.run(seconds: 1, players)
        let match = try #require(players[0].match)
        try match.send(Array("hello".utf8), mode: .reliable)
        try match.send([1, 2, 3], to: ["carol"], mode: .unreliable)
        world.run(seconds: 0.1, players)
        #expect(
            players[1].matchEvents.withLock { $0 }.contains(.data(Array("hello".utf8), from: "alice", mode: .reliable)))
        #expect(players[2].matchEvents.withLock { $0 }.contains(.data([1, 2, 3], from: "alice", mode: .unreliable)))
        #expect(!players[1].matchEvents.withLock { $0 }.contains(.data([1, 2, 3], from: "alice", mode: .unreliable)))
        #expect(throws: VoiceChatError.dataTooLarge(bytes: 1001, maximum: 1000, mode: .unreliable)) {
            try match.send([UInt8](repeating: 0, count: 1001), mode: .unreliable)
        }
        #expect(throws: VoiceChatError.self) { try match.send([1], to: ["mallory"], mode: .reliable) }
    }
}
