import Testing
import VoiceEngine
import VoiceMedia
import VoiceSimulation
import VoiceTestSupport

@Suite struct PathWarmUpTests {
    /// A player whose path comes up while the speaker is silent still gets full packets for a
    /// while, so that its buffer knows the path before the first word; a player connected all
    /// along gets the same run then, and keep-alives otherwise.
    @Test func aPlayerWhosePathComesUpLateGetsFullPacketsThroughTheSpeakersSilence() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob, carol) = (players[0], players[1], players[2])
        for player in players {
            try #require(player.match).voiceChat(named: "all").start()
            player.isTalking = false
        }
        try #require(alice.match).voiceChat(named: "all").setActive(true)
        world.blocked.withLock { _ = $0.insert(carol.network.address) }
        world.realTimeBlocked.withLock { _ = $0.insert("carol") }
        world.run(seconds: 3, players)
        func received(by listener: SimulatedParticipant) -> Int {
            listener.engine.statistics().first { $0.participant == "alice" }?.streams["all"]?.receive.packetsReceived
                ?? 0
        }
        #expect(received(by: carol) == 0)
        // Bob's path came up at once: after its warm-up, only keep-alives (one per 400 ms).
        let bobBefore = received(by: bob)
        world.run(seconds: 2, players)
        #expect(received(by: bob) - bobBefore <= 6)

        world.blocked.withLock { $0.removeAll() }
        world.realTimeBlocked.withLock { $0.removeAll() }
        world.run(seconds: 2, players)
        #expect(alice.match?.path(to: "carol") != nil)
        #expect(received(by: carol) >= VoiceSendPipeline.warmUpFrames)
    }
}
