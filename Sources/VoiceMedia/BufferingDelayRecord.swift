import VoiceCore

/// How long the frames a receive stream played waited between their packet's arrival and their
/// playout: the last, the mean and the 95th percentile, over a histogram in 1 ms steps (up to
/// a second; longer waits count as a second). Preallocated: recording never allocates.
struct BufferingDelayRecord {
    private var histogram = [Int](repeating: 0, count: 1_000)
    private var sum = 0.0
    private(set) var count = 0
    /// The last recorded wait, ms (0 before any).
    private(set) var lastMilliseconds = 0.0

    mutating func record(_ nanoseconds: MediaTime) {
        let milliseconds = Double(max(nanoseconds, 0)) / 1e6
        lastMilliseconds = milliseconds
        sum += milliseconds
        count += 1
        histogram[min(Int(milliseconds), histogram.count - 1)] += 1
    }

    /// The mean wait, ms; nil before any.
    var meanMilliseconds: Double? { count > 0 ? sum / Double(count) : nil }

    /// The wait 95 % of the frames did not exceed, rounded up to the next millisecond; nil before any.
    var p95Milliseconds: Double? {
        guard count > 0 else { return nil }
        let wanted = (Double(count) * 0.95).rounded(.up)
        var cumulative = 0
        for (milliseconds, frames) in histogram.enumerated() {
            cumulative += frames
            if Double(cumulative) >= wanted { return Double(milliseconds + 1) }
        }
        return Double(histogram.count)
    }
}
