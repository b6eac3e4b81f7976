/// Estimates how much buffering a stream needs from the measured arrival delays of its
/// packets, the way WebRTC's NetEq does.
///
/// Each packet's *transit offset* is its arrival time minus its media time. The network's
/// fastest path shows as the smallest offset; a packet's *relative delay* is how much later than
/// that it arrived. The minimum is taken over a sliding window (two consecutive windows of
/// `windowNanoseconds`) rather than over the whole call, so that when the two clocks drift
/// apart the reference follows within seconds instead of drifting away for good.
///
/// Relative delays go into a histogram whose old entries fade with a forgetting factor per
/// packet, so the estimate follows changing networks; the delay the stream needs is a high
/// percentile of it. Recording is O(1) (the weight of new entries grows instead of every bucket
/// shrinking, renormalized rarely); the percentile walks the histogram once.
public struct ArrivalDelayEstimator: Sendable {
    public let bucketMilliseconds: Double
    public let forgettingFactor: Double
    public let windowNanoseconds: MediaTime

    private var buckets: [Double]
    private var totalWeight: Double = 0
    private var increment: Double = 1
    private var fastestPath: WindowedMinimum

    /// `bucketCount × bucketMilliseconds` is the largest delay told apart; larger delays land in
    /// the last bucket.
    public init(
        bucketMilliseconds: Double = 1, bucketCount: Int = 1_000, forgettingFactor: Double = 0.998,
        windowNanoseconds: MediaTime = 2 * MediaTime.nanosecondsPerSecond
    ) {
        self.bucketMilliseconds = max(bucketMilliseconds, 0.01)
        self.forgettingFactor = min(max(forgettingFactor, 0.5), 0.999_999)
        self.windowNanoseconds = max(windowNanoseconds, 1)
        fastestPath = WindowedMinimum(window: self.windowNanoseconds)
        buckets = [Double](repeating: 0, count: max(bucketCount, 1))
    }

    /// The smallest transit offset in the current and previous window (nanoseconds); nil before
    /// the first packet.
    public var minimumTransitOffset: MediaTime? { fastestPath.value }

    /// Folds in one packet's transit offset (arrival minus media time, in nanoseconds) and
    /// returns its relative delay in milliseconds.
    @discardableResult
    public mutating func record(transitOffset: MediaTime, arrival: MediaTime) -> Double {
        fastestPath.record(transitOffset, at: arrival)
        let relative = Double(transitOffset - (minimumTransitOffset ?? transitOffset)) / 1e6
        add(relativeDelayMilliseconds: relative)
        return relative
    }

    /// Adds one relative delay to the histogram directly.
    public mutating func add(relativeDelayMilliseconds delay: Double) {
        let index = min(max(Int(delay / bucketMilliseconds), 0), buckets.count - 1)
        // Fading every old entry by f is the same as growing every new one by 1/f.
        increment /= forgettingFactor
        buckets[index] += increment
        totalWeight += increment
        if increment > 1e200 {
            for bucket in buckets.indices { buckets[bucket] /= increment }
            totalWeight /= increment
            increment = 1
        }
    }

    /// The delay (milliseconds, upper edge of its bucket) that `fraction` of the weighted
    /// history did not exceed; 0 before the first packet.
    public func quantile(_ fraction: Double) -> Double {
        guard totalWeight > 0 else { return 0 }
        let wanted = min(max(fraction, 0), 1) * totalWeight
        var cumulative = 0.0
        for (index, weight) in buckets.enumerated() {
            cumulative += weight
            if cumulative >= wanted && weight > 0 {
                return Double(index + 1) * bucketMilliseconds
            }
        }
        return Double(buckets.count) * bucketMilliseconds
    }

    /// Forgets the fastest-path reference (not the histogram), e.g. when the network's delay has
    /// jumped for good and the old minimum no longer describes it.
    public mutating func resetReference() {
        fastestPath.reset()
    }

    public mutating func reset() {
        for bucket in buckets.indices { buckets[bucket] = 0 }
        totalWeight = 0
        increment = 1
        fastestPath.reset()
    }
}
