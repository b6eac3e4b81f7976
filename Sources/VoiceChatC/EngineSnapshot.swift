import Foundation
import VoiceCore
import VoiceEngine

/// What the game reads every frame (meters, who speaks, statistics), as the event thread last
/// took it from the engine: a read never waits for the engine's turn.
struct EngineSnapshot: Sendable {
    var statistics: [ParticipantStatistics] = []
    var inputDBFS: Float = -.infinity
    var outputDBFS: Float = -.infinity

    /// The statistics as the header describes them, with sorted keys.
    var statisticsJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let sorted = statistics.sorted { ($0.session, $0.participant) < ($1.session, $1.participant) }
        guard let data = try? encoder.encode(sorted) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A stream's speaking flag and level.
    func stream(of player: ParticipantID, in session: String, channel: String) -> StreamStatistics? {
        statistics.first { $0.session == session && $0.participant == player }?.streams[channel]
    }
}
