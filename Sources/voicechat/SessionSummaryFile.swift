import Foundation
import VoiceEngine

/// What `--summary-json` writes when a session ends: one JSON object, for scripts and test rigs
/// that would otherwise parse the closing lines.
struct SessionSummaryFile: Encodable {
    /// "call" or "match".
    var kind: String
    /// This side's participant ID.
    var participant: String
    /// A call's other participant; nil for a match.
    var calling: String?
    /// A match's ID; nil for a call.
    var match: String?
    var seconds: Double
    /// Why it ended, as the closing line says it.
    var ending: String
    /// Every other participant as last seen: path, round trip and what arrived in each channel.
    var participants: [ParticipantStatistics]

    /// Writes the summary to `path` (checked at start-up); says on standard error if it cannot.
    func write(to path: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            var data = try encoder.encode(self)
            data.append(UInt8(ascii: "\n"))
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            printStatus("could not write the summary to \(path): \(error)", level: .warning)
        }
    }
}
