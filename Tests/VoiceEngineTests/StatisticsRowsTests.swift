import Testing
import VoiceCore
import VoiceSimulation
import VoiceTestSupport

@testable import VoiceEngine

/// The statistics are read into rows the caller made room for (the engine thread must not
/// allocate), and the caller makes the dictionaries.
@Suite struct StatisticsRowsTests {
    @Test func rowsBeyondTheRoomGivenAreCountedNotAddedAndTheEngineStillAnswersWhole() throws {
        let world = SimulatedWorld()
        let players: [ParticipantID] = ["alice", "bob", "carol", "dave"]
        let participants = try players.enumerated().map { try world.participant($0.element, index: $0.offset) }
        for participant in participants {
            let channel = try participant.join("arena", players: players).voiceChat(named: "team")
            try channel.start()
            try channel.setActive(true)
        }
        world.run(seconds: 1, participants)
        let alice = participants[0]
        var rows: [StatisticsRow] = []
        rows.reserveCapacity(2)
        let room = rows.capacity
        let needed = alice.engine.withCore { $0.readStatistics(into: &rows) }
        // Three players, and a stream from each in the match's channel.
        #expect(needed == 6)
        #expect(rows.count == min(room, needed))
        #expect(rows.capacity == room, "no room was made where the rows were read")
        let statistics = alice.engine.statistics()
        #expect(alice.engine.statistics(roomForRows: 1) == statistics, "read again with room for them all")
        #expect(statistics.map(\.participant) == ["bob", "carol", "dave"])
        #expect(statistics.allSatisfy { $0.streams.count == 1 && $0.streams.values.first?.hasEnded == false })
    }
}
