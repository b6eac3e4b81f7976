import Foundation
import VoiceEngine
import VoiceTransport

/// What a call did, for the closing report: the last statistics seen of the remote participant.
struct CallSummary {
    enum Ending: Equatable, CustomStringConvertible {
        case durationReached
        case interrupted
        /// The other side ended the call (or its engine did), for this reason.
        case remoteEnded(String)
        /// The signalling connection closed without the call being ended.
        case linkClosed(String)
        case noCall

        var description: String {
            switch self {
            case .durationReached: "duration reached"
            case .interrupted: "interrupted"
            case .remoteEnded(let reason): reason
            case .linkClosed(let reason): "signalling connection ended (\(reason))"
            case .noCall: "no call arrived"
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
        let receive = statistics.streams["call"]?.receive ?? statistics.streams.values.first?.receive
        let path = statistics.path?.rawValue ?? "none"
        let rtt = statistics.roundTripMilliseconds.map { String(format: "%.1f ms", $0) } ?? "n/a"
        var line = "summary: path \(path), rtt \(rtt)"
        if let receive {
            let expected = receive.packetsReceived + receive.packetsLost
            let loss = expected > 0 ? 100 * Double(receive.packetsLost) / Double(expected) : 0
            line += String(
                format: ", loss %.1f %% (%d of %d packets), jitter %.1f ms, buffer delay %.1f ms (p95 %.1f ms)", loss,
                receive.packetsLost, expected, receive.jitterMilliseconds, receive.meanBufferingDelayMilliseconds,
                receive.p95BufferingDelayMilliseconds)
        } else {
            line += ", nothing received"
        }
        return "call with \(remote) ended after \(String(format: "%.1f", callSeconds)) s: \(ending)\n\(line)"
    }
}
