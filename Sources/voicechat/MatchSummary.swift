import Foundation
import VoiceEngine

/// What a match did, for the closing report: one line per other player, from the last statistics.
struct MatchSummary {
    var match: String
    var seconds: Double
    var ending: String
    var statistics: [ParticipantStatistics]

    var report: String {
        var lines = ["left match \(match) after \(String(format: "%.1f", seconds)) s: \(ending)"]
        if statistics.isEmpty {
            lines.append("summary: no other player joined")
        }
        for player in statistics.sorted(by: { $0.participant < $1.participant }) {
            lines.append("summary: \(player.participant): " + Self.describe(player))
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ statistics: ParticipantStatistics) -> String {
        let path = statistics.path?.rawValue ?? "none"
        let rtt = statistics.roundTripMilliseconds.map { String(format: "%.1f ms", $0) } ?? "n/a"
        var line = "path \(path), rtt \(rtt)"
        let streams = statistics.streams.values.map(\.receive)
        guard !streams.isEmpty else { return line + ", nothing received" }
        let lost = streams.reduce(0) { $0 + $1.packetsLost }
        let expected = streams.reduce(0) { $0 + $1.packetsReceived + $1.packetsLost }
        let loss = expected > 0 ? 100 * Double(lost) / Double(expected) : 0
        let jitter = streams.map(\.jitterMilliseconds).max() ?? 0
        let delay = streams.map(\.meanBufferingDelayMilliseconds).max() ?? 0
        line += String(
            format: ", loss %.1f %% (%d of %d packets), jitter %.1f ms, buffer delay %.1f ms", loss, lost, expected,
            jitter, delay)
        return line
    }
}
