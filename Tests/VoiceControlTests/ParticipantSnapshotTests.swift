import Foundation
import Testing
import VoiceEngine
import VoiceMedia

@testable import VoiceControl

@Suite struct ParticipantSnapshotTests {
    /// A participant heard in two channels, their receive statistics as the engine reports them.
    static func statistics(_ first: ReceiveStatistics, _ second: ReceiveStatistics) throws -> ParticipantStatistics {
        func stream(_ receive: ReceiveStatistics) throws -> String {
            let encoded = String(decoding: try JSONEncoder().encode(receive), as: UTF8.self)
            return "{\"levelDBFS\": -30, \"isSpeaking\": false, \"hasEnded\": false, \"receive\": \(encoded)}"
        }
        let json =
            "{\"session\": \"m\", \"participant\": \"alice\", \"streams\": {\"all\": \(try stream(first)), "
            + "\"team\": \(try stream(second))}}"
        return try JSONDecoder().decode(ParticipantStatistics.self, from: Data(json.utf8))
    }

    @Test func lateArrivalsAndEveryStepOfTheTimelineAddUpOverTheStreams() throws {
        var first = ReceiveStatistics()
        first.packetsLate = 2
        first.framesInserted = 3
        first.framesDropped = 1
        first.framesDroppedForCatchUp = 4
        var second = ReceiveStatistics()
        second.packetsLate = 1
        second.framesInserted = 1
        second.framesSqueezedAway = 2
        let snapshot = ParticipantSnapshot(try Self.statistics(first, second), muted: false)
        #expect(snapshot.packetsLate == 3)
        #expect(snapshot.framesInserted == 4)
        #expect(snapshot.framesSkipped == 7)
    }
}
