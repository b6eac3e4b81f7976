/// How a simulated one-way network path treats the datagrams sent over it.
///
/// Values outside their documented range are clamped into it by `SimulatedNetwork`; call
/// `validate()` first to report them to a user instead.
public struct NetworkConditions: Sendable, Hashable {
    /// Long-run fraction of datagrams lost, 0…1.
    public var lossRate: Double
    /// Mean number of consecutive datagrams lost together. 1 (or less) means independent losses;
    /// above 1, losses come in bursts from a Gilbert–Elliott model with this mean burst length.
    public var meanBurstLength: Double
    /// Mean length of a burst in time, in milliseconds; 0: bursts are counted in datagrams
    /// (`meanBurstLength`). Above 0, the bursts' chain steps every 10 ms of the sender's clock
    /// (`PacketLossModel`), so that senders of any frame length meet holes of the same length.
    public var meanBurstMilliseconds: Double
    /// Delay every datagram takes, in milliseconds.
    public var baseDelayMilliseconds: Double
    /// Extra delay drawn uniformly from [0, J] milliseconds per datagram, so datagrams reorder.
    public var jitterMilliseconds: Double
    /// Probability that a delivered datagram arrives twice (the copy draws its own delay).
    public var duplicateRate: Double
    /// Probability per datagram that a delay spike starts with it.
    public var delaySpikeRate: Double
    /// Extra delay at the start of a spike, in milliseconds; it drains as time passes.
    public var delaySpikeMilliseconds: Double
    /// A delay that drifts slowly: up to this much more than the base delay and back again, in
    /// milliseconds, over each `delayWanderPeriodSeconds` (a raised cosine of the send time).
    public var delayWanderMilliseconds: Double
    public var delayWanderPeriodSeconds: Double
    /// A delay that steps, as a route that changes: this much more than the base delay, in
    /// milliseconds, during every other `delayStepIntervalSeconds` of the send time.
    public var delayStepMilliseconds: Double
    public var delayStepIntervalSeconds: Double

    public init(
        lossRate: Double = 0, meanBurstLength: Double = 1, meanBurstMilliseconds: Double = 0,
        baseDelayMilliseconds: Double = 20,
        jitterMilliseconds: Double = 0, duplicateRate: Double = 0, delaySpikeRate: Double = 0,
        delaySpikeMilliseconds: Double = 0, delayWanderMilliseconds: Double = 0, delayWanderPeriodSeconds: Double = 10,
        delayStepMilliseconds: Double = 0, delayStepIntervalSeconds: Double = 5
    ) {
        self.lossRate = lossRate
        self.meanBurstLength = meanBurstLength
        self.meanBurstMilliseconds = meanBurstMilliseconds
        self.baseDelayMilliseconds = baseDelayMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.duplicateRate = duplicateRate
        self.delaySpikeRate = delaySpikeRate
        self.delaySpikeMilliseconds = delaySpikeMilliseconds
        self.delayWanderMilliseconds = delayWanderMilliseconds
        self.delayWanderPeriodSeconds = delayWanderPeriodSeconds
        self.delayStepMilliseconds = delayStepMilliseconds
        self.delayStepIntervalSeconds = delayStepIntervalSeconds
    }

    /// A perfect path with `baseDelayMilliseconds` of delay.
    public static let perfect = NetworkConditions()

    /// Checks every value is in its range (and finite), and that the loss rate and burst length can
    /// be produced together.
    public func validate() throws(NetworkConditionsError) {
        func check(_ value: Double, _ name: String, _ range: ClosedRange<Double>) throws(NetworkConditionsError) {
            guard value.isFinite, range.contains(value) else {
                throw NetworkConditionsError(
                    message: "\(name) is \(value); it must lie in \(range.lowerBound)…\(range.upperBound)")
            }
        }
        try check(lossRate, "loss rate", 0...1)
        try check(meanBurstLength, "mean burst length", 0...1e6)
        try check(meanBurstMilliseconds, "mean burst (ms)", 0...1e6)
        try check(baseDelayMilliseconds, "base delay (ms)", 0...1e6)
        try check(jitterMilliseconds, "jitter (ms)", 0...1e6)
        try check(duplicateRate, "duplicate rate", 0...1)
        try check(delaySpikeRate, "delay spike rate", 0...1)
        try check(delaySpikeMilliseconds, "delay spike (ms)", 0...1e6)
        try check(delayWanderMilliseconds, "delay wander (ms)", 0...1e6)
        try check(delayWanderPeriodSeconds, "delay wander period (s)", 0.1...1e6)
        try check(delayStepMilliseconds, "delay step (ms)", 0...1e6)
        try check(delayStepIntervalSeconds, "delay step interval (s)", 0.1...1e6)
        // In time, a burst is counted in the chain's 10 ms steps.
        let steps = meanBurstMilliseconds > 0 ? meanBurstMilliseconds / 10 : meanBurstLength
        let burst = meanBurstMilliseconds > 0 ? "\(meanBurstMilliseconds) ms" : "\(meanBurstLength)"
        if steps > 1 && lossRate > 0 {
            let maximum = steps / (1 + steps)
            guard lossRate <= maximum || lossRate == 1 else {
                throw NetworkConditionsError(
                    message: "a loss rate of \(lossRate) cannot have a mean burst length of \(burst): "
                        + "with that burst length the loss rate can be at most \(maximum); raise the burst length")
            }
        }
    }
}

/// A `NetworkConditions` value out of range, with what to change.
public struct NetworkConditionsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
