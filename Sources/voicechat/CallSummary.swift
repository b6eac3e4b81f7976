import Foundation
import VoiceCore
import VoiceEngine
import VoiceTransport

/// What a call did, for the closing report: the last statistics seen of the remote participant.
struct CallSummary {
    enum Ending: CustomStringConvertible {
        case durationReached
        case interrupted
        /// `--input` played to its end and no `--duration` was given.
        case inputEnded
        /// The other side ended the call (or its engine did), for this reason.
        case remoteEnded(String)

        var description: String {
            switch self {
            case .durationReached: "duration reached"
            case .interrupted: InterruptSignal.ending
            case .inputEnded: "the input file ended"
            case .remoteEnded(let reason): reason
            }
        }
    }

    var remote: ParticipantID
    var ending: Ending
    var callSeconds: Double
    var statistics: ParticipantStatistics?

    var report: String {
        guard let statistics else {
            return "call with \(remote) ended: \(ending); no statistics (the call never carried voice)"
        }
        return "call with \(remote) ended after \(String(format: "%.1f", callSeconds)) s: \(ending)\n"
            + "summary: " + Self.describe(statistics)
    }

    /// Path, rtt, and the call stream's loss, jitter and buffer delay (mean and p95).
    static func describe(_ statistics: ParticipantStatistics) -> String {
        let receive = statistics.streams["call"]?.receive ?? statistics.streams.values.first?.receive
        var line = MatchSummary.describePath(statistics)
        guard let receive else { return line + ", nothing received" }
        line += MatchSummary.describeReceive(
            lost: receive.packetsLost, expected: receive.packetsReceived + receive.packetsLost,
            jitter: receive.jitterMilliseconds, delay: receive.meanBufferingDelayMilliseconds)
        return line + String(format: " (p95 %.1f ms)", receive.p95BufferingDelayMilliseconds)
    }
}
