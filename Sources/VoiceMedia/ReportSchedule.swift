import VoiceCore

/// When a listener reports on a stream: once per interval, and sooner when the stream booked a
/// loss burst its sender's protection could not repair (see
/// `VoiceReceiveStream.hasUnrepairableLoss`), but never twice within `minimumGap`.
///
/// A sender learns of loss only from reports, so every loss between the first burst and the next
/// regular report goes unprotected: measured on the quality benchmark's calls (10 % bursty loss,
/// mean burst 3, 20 ms frames, 500 ms reports, seeds 1–8), reporting every 250 ms instead raised
/// PESQ-WB by 0.05 on average, at twice the reports for the whole call. Reporting early only
/// when protection falls short, as RTCP's early feedback does (RFC 4585), spends the extra
/// reports only then.
public struct ReportSchedule: Sendable, Hashable {
    public let interval: MediaTime
    public let minimumGap: MediaTime
    private var next: MediaTime
    private var last: MediaTime

    /// The shortest time between two reports by default: a few frames, enough for the sender's
    /// answer to reach the listener before it would report again.
    public static let defaultMinimumGap = MediaTime.milliseconds(100)

    /// A schedule whose first regular report is due one interval after `start`.
    public init(interval: MediaTime, minimumGap: MediaTime = Self.defaultMinimumGap, start: MediaTime) {
        self.interval = interval
        self.minimumGap = minimumGap
        next = start + interval
        last = start
    }

    /// Whether a report is due at `now`; `unrepairableLoss` asks for an early one.
    public func isDue(at now: MediaTime, unrepairableLoss: Bool) -> Bool {
        now >= next || (unrepairableLoss && now - last >= minimumGap)
    }

    /// Notes a report sent at `now`: the next regular one is an interval later.
    public mutating func reported(at now: MediaTime) {
        last = now
        next = now + interval
    }
}
