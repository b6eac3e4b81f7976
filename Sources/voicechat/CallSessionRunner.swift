import Synchronization
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceTransport
import VoiceWire

/// Runs one 1:1 call over a signalling link until it ends: the call ends or is refused, the link
/// closes, the deadline passes, or Ctrl-C. Used by `listen` (answering) and `call` (placing).
///
/// Observers (statistics writers, a control socket, an interactive console) hook in through
/// `service` and `remote`.
final class CallSessionRunner: Sendable {
    enum Role {
        /// Waits for the remote participant's invitation and accepts it.
        case answering
        /// Invites the remote participant.
        case placing
    }

    let engine: VoiceEngine
    let link: TCPSignallingLink
    let service: VoiceChatService
    /// The participant on the other end of the link.
    var remote: ParticipantID { link.remoteParticipant }
    private let role: Role
    private let pending = EventInbox<VoiceChatEvent>()
    /// How long a call may take to start before giving up: the engine's invitation and path
    /// timeouts, plus a margin.
    private let setupSeconds: Double

    /// How often the loop looks at events, the clock and Ctrl-C.
    private static let pollInterval: Duration = .milliseconds(50)

    init(engine: VoiceEngine, link: TCPSignallingLink, role: Role) {
        self.engine = engine
        self.link = link
        self.role = role
        let pending = self.pending
        service = VoiceChatService(engine: engine, client: link) { event in
            pending.append(event)
        }
        setupSeconds =
            engine.configuration.invitationTimeoutSeconds + engine.configuration.pathTimeoutSeconds + 5
        link.attach(service)
    }

    /// Runs the call until it ends. `deadline` is a monotonic time (`MediaTime`) or nil.
    ///
    /// - Throws: `CommandFailure` when the call does not start or the connection is lost during it.
    func run(until deadline: MediaTime?) async throws(CommandFailure) -> CallSummary {
        let started = MediaTime.monotonicNow()
        let setupDeadline = started + MediaTime.milliseconds(setupSeconds * 1000)
        var callStart: MediaTime?
        var call: CallID?
        var lastStatistics: ParticipantStatistics?
        var nextSnapshot: MediaTime = 0
        if role == .placing {
            do {
                call = try service.startVoiceChat(with: remote)
            } catch {
                throw CommandFailure("cannot call \(remote): \(error)")
            }
            printStatus("calling \(remote) …")
        }
        var ending: CallSummary.Ending
        var inputEnd = InputEnd()
        loop: while true {
            let now = MediaTime.monotonicNow()
            for event in pending.take() {
                switch event {
                case .invitation(let invited, let from):
                    guard role == .answering, from == remote, call == nil else {
                        try? service.deny(invited)
                        continue
                    }
                    printStatus("incoming call from \(from); accepting")
                    do {
                        try service.accept(invited)
                    } catch {
                        throw CommandFailure("cannot accept the call from \(from): \(error)")
                    }
                    call = invited
                case .started(_, let with, let path):
                    callStart = now
                    printStatus("call with \(with) started: path \(path.rawValue)")
                case .pathChanged(_, let with, let path):
                    printStatus("path to \(with) changed: \(path?.rawValue ?? "none (looking for one)")")
                case .didNotStart(_, let with, let reason):
                    throw CommandFailure(Self.didNotStartMessage(with: with, reason: reason))
                case .stopped(_, _, let reason):
                    ending = .remoteEnded(reason.description)
                    break loop
                case .signallingRejected(let from, let error):
                    printStatus("warning: refused signalling from \(from): \(error)", level: .warning)
                }
            }
            if InterruptSignal.wasReceived {
                ending = .interrupted
                break
            }
            if deadline.map({ now >= $0 }) == true {
                guard callStart != nil else {
                    try? service.stopVoiceChat(with: remote)
                    throw CommandFailure(
                        "the call with \(remote) had not started when --duration ran out; allow more time, "
                            + "or check the other side's output")
                }
                ending = .durationReached
                break
            }
            if deadline == nil, callStart != nil, inputEnd.hasEnded(service.engine.isInputExhausted, at: now) {
                ending = .inputEnded
                break
            }
            if let linkEnding = link.ending {
                guard callStart != nil else {
                    throw CommandFailure(
                        "\(remote) closed the connection before the call started (\(linkEnding)); "
                            + "check the other side's output")
                }
                if case .peerHungUp = linkEnding {
                    ending = .remoteEnded("\(remote) hung up")
                    break
                }
                lastStatistics = statistics() ?? lastStatistics
                throw CommandFailure(
                    "the connection to \(remote) ended during the call (\(linkEnding)); "
                        + (lastStatistics.map { "summary: " + CallSummary.describe($0) } ?? "no statistics"))
            }
            if callStart == nil, now >= setupDeadline {
                throw CommandFailure(
                    "the call with \(remote) did not start within \(Int(setupSeconds)) s; check that voice (UDP) "
                        + "can pass between the hosts or try --path app")
            }
            if callStart != nil, now >= nextSnapshot {
                lastStatistics = statistics() ?? lastStatistics
                nextSnapshot = now + .milliseconds(500)
            }
            try? await Task.sleep(for: Self.pollInterval)
        }
        if callStart != nil {
            lastStatistics = statistics() ?? lastStatistics
        }
        if case .remoteEnded = ending {
        } else {
            try? service.stopVoiceChat(with: remote)
        }
        let seconds = callStart.map { Double(MediaTime.monotonicNow() - $0) / 1e9 } ?? 0
        return CallSummary(remote: remote, ending: ending, callSeconds: seconds, statistics: lastStatistics)
    }

    private func statistics() -> ParticipantStatistics? {
        engine.statistics().first { $0.participant == remote }
    }

    private static func didNotStartMessage(with other: ParticipantID, reason: CallEndReason) -> String {
        switch reason {
        case .denied:
            "\(other) denied the call"
        case .timedOut:
            "\(other) did not answer the call in time; check that the other side accepts calls"
        case .noRealTimePath:
            "no real-time path to \(other) could be found; check that UDP can pass between the hosts, or try --path app"
        default:
            "the call with \(other) did not start: \(reason)"
        }
    }
}

/// When a session whose `--input` file ended, with no `--duration` to run for, ends: once what it
/// sent last has had time to play at the other end.
struct InputEnd {
    /// How long after its input ended a session goes on: the network, the far jitter buffer and
    /// its speaker's queue.
    static let tail = MediaTime.milliseconds(500)
    private var endedAt: MediaTime?

    /// Whether the session ends now, given whether the input has ended.
    mutating func hasEnded(_ inputExhausted: Bool, at now: MediaTime) -> Bool {
        guard inputExhausted else { return false }
        let endedAt = self.endedAt ?? now
        self.endedAt = endedAt
        return now - endedAt >= Self.tail
    }
}
