/// A duration in nanoseconds, for comparing with `NIODeadline.uptimeNanoseconds` readings (the
/// relay's and its clients' clocks).
package func nanoseconds(_ duration: Duration) -> UInt64 {
    UInt64(duration.components.seconds) * 1_000_000_000 + UInt64(duration.components.attoseconds / 1_000_000_000)
}
