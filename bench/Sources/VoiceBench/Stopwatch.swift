import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic nanoseconds as an unsigned count, for the timing loops' arithmetic.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    UInt64(MediaTime.monotonicNow())
}

/// CPU time the calling thread has used, in nanoseconds: what a thread's work costs, without the
/// time other threads (the engine's courier, other processes on a shared machine) took its CPU.
func threadCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty, "median of nothing")
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The `fraction` quantile of `values` (nearest rank), or 0 for none.
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
