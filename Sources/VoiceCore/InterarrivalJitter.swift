/// RFC 3550 interarrival jitter (section 6.4.1): the mean deviation of the difference in packet
/// spacing at the receiver compared with the sender, smoothed with gain 1/16.
///
/// Works in media-clock units (48 kHz samples), as RTCP reports it. Packets are folded in in
/// arrival order; reordered packets simply contribute a larger deviation, as the RFC intends.
public struct InterarrivalJitter: Sendable, Hashable {
    public let clockRate: Double
    /// The smoothed jitter in media-clock units.
    public private(set) var jitter: Double = 0
    private var previousTransit: Double?

    public init(clockRate: Int = engineSampleRate) {
        self.clockRate = Double(clockRate)
    }

    /// Folds in one packet that arrived at `arrival` carrying media timestamp `timestamp`
    /// (unwrapped, so wraps never look like jumps).
    public mutating func record(arrival: MediaTime, timestamp: Int64) {
        let transit = Double(arrival) * clockRate / 1e9 - Double(timestamp)
        if let previousTransit {
            let deviation = abs(transit - previousTransit)
            jitter += (deviation - jitter) / 16
        }
        previousTransit = transit
    }

    /// The jitter in milliseconds.
    public var milliseconds: Double { jitter * 1_000 / clockRate }

    public mutating func reset() {
        jitter = 0
        previousTransit = nil
    }
}
