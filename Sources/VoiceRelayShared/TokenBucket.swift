/// A token bucket on a monotonic nanosecond clock: `rate` tokens per second, at most `burst` saved.
public struct TokenBucket: Sendable {
    private let ratePerNanosecond: Double
    private let burst: Double
    private var tokens: Double
    private var lastRefill: UInt64

    public init(ratePerSecond: Double, burst: Double, now: UInt64) {
        ratePerNanosecond = ratePerSecond / 1e9
        self.burst = burst
        tokens = burst
        lastRefill = now
    }

    /// Takes `cost` tokens if there are enough.
    @inline(__always)
    public mutating func take(_ cost: Double, now: UInt64) -> Bool {
        if now > lastRefill {
            tokens = min(burst, tokens + Double(now - lastRefill) * ratePerNanosecond)
            lastRefill = now
        }
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }
}
