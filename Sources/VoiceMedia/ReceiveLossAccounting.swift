/// A stream's loss as its receiver reports count it, interval by interval: frames missing at
/// playout (before any repair: what the sender's protection has to cover), the bursts they came
/// in, and packets that turned up after their frame was booked missing.
///
/// As in RFC 3550, a packet that came late was received, not lost: lateness is the listener's
/// buffer to absorb, and copies from the sender cannot help it (they come later still). Counting
/// it as lost made a listener whose machine stalled ask for protection that only raised its delay.
struct ReceiveLossAccounting {
    /// Frames booked this interval, missing or not.
    private(set) var intervalExpected = 0
    /// Frames booked missing this interval.
    private(set) var intervalMissing = 0
    /// Runs of missing frames booked this interval.
    private(set) var intervalBursts = 0
    /// Packets that came this interval after their frame had been booked missing.
    private(set) var intervalLate = 0
    /// Frames missing since the stream began, less those whose packets came late.
    private(set) var cumulativeMissing = 0
    /// Whether a run of missing frames longer than the sender's protection reaches was booked this
    /// interval: the sender should hear of it before the next regular report.
    private(set) var hasUnrepairableLoss = false

    /// Books the frame that played and the `gap` frames before it that did not, `arrivedLate` of
    /// which came after their turn (received, so not missing); `protectionFrames` is how far back
    /// the sender's copies reach. Returns the frames missing.
    mutating func book(gap: Int, arrivedLate: Int, protectionFrames: Int) -> Int {
        let missing = max(gap - arrivedLate, 0)
        if missing > 0 {
            intervalMissing += missing
            cumulativeMissing += missing
            intervalBursts += 1
            if missing > protectionFrames { hasUnrepairableLoss = true }
        }
        intervalExpected += gap + 1
        return missing
    }

    /// A packet came after its frame had been booked missing.
    mutating func noteLateArrival() {
        intervalLate += 1
        cumulativeMissing = max(cumulativeMissing - 1, 0)
    }

    /// The interval's loss for a report (fraction of the frames booked, mean burst length in
    /// frames, 0 without loss), and the start of the next interval.
    mutating func closeInterval() -> (fractionLost: Float, meanBurstLength: Float, cumulativeLost: UInt32) {
        let lost = max(intervalMissing - intervalLate, 0)
        let fraction = intervalExpected > 0 ? min(Float(lost) / Float(intervalExpected), 1) : 0
        let burst = intervalBursts > 0 && lost > 0 ? max(Float(lost) / Float(intervalBursts), 1) : 0
        let figures = (fraction, burst, UInt32(clamping: cumulativeMissing))
        intervalExpected = 0
        intervalMissing = 0
        intervalBursts = 0
        intervalLate = 0
        hasUnrepairableLoss = false
        return figures
    }
}
