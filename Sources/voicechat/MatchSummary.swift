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
        let streams = statistics.streams.values.map(\.receive)
        let line = describePath(statistics)
        guard !streams.isEmpty else { return line + ", nothing received" }
        return line
            + describeReceive(
                lost: streams.reduce(0) { $0 + $1.packetsLost },
                expected: streams.reduce(0) { $0 + $1.packetsReceived + $1.packetsLost },
                jitter: streams.map(\.jitterMilliseconds).max() ?? 0,
                delay: streams.map(\.meanBufferingDelayMilliseconds).max() ?? 0)
    }

    /// "path relay, rtt 3.1 ms"
    static func describePath(_ statistics: ParticipantStatistics) -> String {
        let rtt = statistics.roundTripMilliseconds.map { String(format: "%.1f ms", $0) } ?? "n/a"
        return "path \(statistics.path?.rawValue ?? "none"), rtt \(rtt)"
    }

    /// ", loss 0.4 % (2 of 500 packets), jitter 1.2 ms, buffer delay 40.0 ms"
    static func describeReceive(lost: Int, expected: Int, jitter: Double, delay: Double) -> String {
        let loss = expected > 0 ? 100 * Double(lost) / Double(expected) : 0
        return String(
            format: ", loss %.1f %% (%d of %d packets), jitter %.1f ms, buffer delay %.1f ms", loss, lost, expected,
            jitter, delay)
    }
}
