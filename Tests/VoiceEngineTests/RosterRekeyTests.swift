import Testing
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport

@Suite struct RosterRekeyTests {
    @Test func aPlayerLeavingRekeysTheOthersWithoutAGapInTheirVoice() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let channels = try players.map { try #require($0.match).voiceChat(named: "all") }
        for channel in channels { try channel.start() }
        try channels[0].setActive(true)
        world.run(seconds: 3, players)
        let before = try #require(players[1].engine.statistics().first { $0.participant == "alice" }?.streams["all"])
        let sentBefore = players[0].engine.counters.datagramsSent["direct"] ?? 0

        try #require(players[2].match).disconnect()
        world.run(seconds: 4, Array(players[0...1]))

        let after = try #require(players[1].engine.statistics().first { $0.participant == "alice" }?.streams["all"])
        #expect(after.receive.packetsReceived > before.receive.packetsReceived + 150)
        #expect(after.receive.packetsLost == before.receive.packetsLost)
        #expect(after.receive.concealedSamples == before.receive.concealedSamples)
        #expect((players[0].engine.counters.datagramsSent["direct"] ?? 0) > sentBefore)
        #expect(players[1].engine.counters.unopenedDatagrams == 0)
        #expect(players[1].heardLevel(of: players[0].frequency, lastSeconds: 1) > 0.05)
    }
}
