import Synchronization
import VoiceCore

/// Durations the engine measures on its own paths (how late its thread woke, how long callers
/// waited for it to run their commands): a histogram written without allocating or locking,
/// which any thread may read (every bucket is an atomic).
final class DurationRecorder: @unchecked Sendable {
    /// Bucket width; lateness at or past the last bucket counts in it.
    static let bucketNanoseconds: MediaTime = 10_000
    static let bucketCount = 5_000
    private let buckets: UnsafeMutablePointer<Atomic<Int>>

    init() {
        buckets = .allocate(capacity: Self.bucketCount)
        for index in 0..<Self.bucketCount { (buckets + index).initialize(to: Atomic(0)) }
    }

    deinit {
        buckets.deinitialize(count: Self.bucketCount)
        buckets.deallocate()
    }

    func record(_ duration: MediaTime) {
        let index = min(Int(max(duration, 0) / Self.bucketNanoseconds), Self.bucketCount - 1)
        buckets[index].add(1, ordering: .relaxed)
    }

    var histogram: DurationHistogram {
        DurationHistogram(
            counts: (0..<Self.bucketCount).map { buckets[$0].load(ordering: .relaxed) },
            bucketNanoseconds: Self.bucketNanoseconds)
    }
}

/// Durations the engine measured of itself so far (`VoiceEngine.engineThreadLateness`,
/// `engineCommandWaits`), in buckets.
public struct DurationHistogram: Sendable, Hashable {
    /// Measurements per bucket of `bucketNanoseconds`, from zero up; the last holds all beyond.
    public var counts: [Int]
    public var bucketNanoseconds: MediaTime

    public var count: Int { counts.reduce(0, +) }

    /// The duration that `fraction` (0…1) of the measurements were no longer than, in
    /// milliseconds: the upper edge of the bucket where that fraction is reached; nil when empty.
    public func percentileMilliseconds(_ fraction: Double) -> Double? {
        let total = count
        guard total > 0 else { return nil }
        let wanted = max(1, Int((Double(total) * fraction).rounded(.up)))
        var seen = 0
        for (index, count) in counts.enumerated() {
            seen += count
            if seen >= wanted { return Double(MediaTime(index + 1) * bucketNanoseconds) / 1e6 }
        }
        return nil
    }

    /// The longest measurement, in milliseconds: the upper edge of its bucket; nil when empty.
    public var longestMilliseconds: Double? {
        counts.lastIndex { $0 > 0 }.map { Double(MediaTime($0 + 1) * bucketNanoseconds) / 1e6 }
    }

    /// The measurements after `base` (an earlier reading of the same engine).
    public func subtracting(_ base: DurationHistogram) -> DurationHistogram {
        var difference = self
        for index in counts.indices where index < base.counts.count { difference.counts[index] -= base.counts[index] }
        return difference
    }
}
