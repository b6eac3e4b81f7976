/// Turns receiver reports into the sender's protection: Opus in-band FEC, the packet-loss hint,
/// and the depth of RED-like redundancy (copies of the previous one or two frames in each packet).
///
/// Loss estimates rise at once to what a report shows (protection must arrive before the next
/// burst, not after) and fall by `decay` per report (a clean report halves them with the default),
/// so one lucky interval does not drop protection. Every switch has a lower threshold for off
/// than for on, so an estimate hovering near a threshold does not toggle it on every report.
///
/// The thresholds, with the defaults:
/// * FEC on from 1 % loss, off below 0.5 %.
/// * Redundancy of one frame from 3 % loss, off below 1.5 %: a lost packet's frame then arrives
///   in the next packet even when Opus has no FEC to give (CELT frames, low bitrates).
/// * Two frames when losses come in bursts: mean burst length from 1.5 packets, back to one
///   below 1.25. Independent loss at 10 % has a mean burst of about 1.1.
///
/// The packet-loss hint is the estimate rounded to whole percent, raised to what libopus 1.3.1 needs
/// before it emits any FEC at all at the bitrate (see `packetLossHintPercent(bitrate:)`).
public struct SendLossAdaptation: Sendable, Hashable {
    public struct Configuration: Sendable, Hashable {
        public var fecOnFractionLost: Float = 0.01
        public var fecOffFractionLost: Float = 0.005
        public var redundancyOnFractionLost: Float = 0.03
        public var redundancyOffFractionLost: Float = 0.015
        public var burstyOnMeanBurstLength: Float = 1.5
        public var burstyOffMeanBurstLength: Float = 1.25
        /// How much of the old estimate a report showing less loss keeps (0…1).
        public var decay: Float = 0.5
        /// The highest packet-loss hint given to Opus: above it Opus spends so much on FEC that
        /// the primary frames suffer, and the redundancy covers the rest.
        public var maximumLossHintPercent: Int = 30

        public init() {}
    }

    public let configuration: Configuration
    /// Fraction of packets lost (0…1), smoothed over reports.
    public private(set) var fractionLost: Float = 0
    /// Mean loss-burst length in packets (≥ 1), smoothed over reports that saw loss.
    public private(set) var meanBurstLength: Float = 1
    public private(set) var fecEnabled = false
    /// 0, 1 or 2 earlier frames carried in each packet.
    public private(set) var redundancyDepth = 0

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Folds in one report's figures. Non-finite or negative values count as no loss.
    public mutating func update(fractionLost reported: Float, meanBurstLength reportedBurst: Float) {
        let decay = min(max(configuration.decay, 0), 1)
        let lost = reported.isFinite ? min(max(reported, 0), 1) : 0
        fractionLost = lost >= fractionLost ? lost : decay * fractionLost + (1 - decay) * lost
        if lost > 0 {
            let burst = reportedBurst.isFinite ? max(reportedBurst, 1) : 1
            meanBurstLength = burst >= meanBurstLength ? burst : decay * meanBurstLength + (1 - decay) * burst
        } else {
            meanBurstLength = 1 + decay * (meanBurstLength - 1)
        }

        if fecEnabled {
            if fractionLost < configuration.fecOffFractionLost { fecEnabled = false }
        } else if fractionLost >= configuration.fecOnFractionLost {
            fecEnabled = true
        }

        let bursty =
            redundancyDepth == 2
            ? meanBurstLength >= configuration.burstyOffMeanBurstLength
            : meanBurstLength >= configuration.burstyOnMeanBurstLength
        if redundancyDepth == 0 {
            if fractionLost >= configuration.redundancyOnFractionLost { redundancyDepth = bursty ? 2 : 1 }
        } else if fractionLost < configuration.redundancyOffFractionLost {
            redundancyDepth = 0
        } else {
            redundancyDepth = bursty ? 2 : 1
        }
    }

    /// The packet-loss hint for Opus at `bitrate`, in percent.
    ///
    /// libopus 1.3.1 emits in-band FEC only when the hint and the bitrate allow it: from a 5 %
    /// hint at 32 kbit/s and more, from 10 % at 24 kbit/s, never at 16 kbit/s (measured, see
    /// PLATFORM.md). While FEC is on, the hint is therefore at least that minimum, so the FEC
    /// we pay for in encoder effort is actually sent; below 24 kbit/s the hint is the plain
    /// estimate and the redundancy does the protecting.
    public func packetLossHintPercent(bitrate: Int) -> Int {
        let measured = Int((fractionLost * 100).rounded())
        guard fecEnabled else { return min(measured, configuration.maximumLossHintPercent) }
        let minimumForFEC = bitrate >= 32_000 ? 5 : bitrate >= 24_000 ? 10 : 0
        return min(max(measured, minimumForFEC), configuration.maximumLossHintPercent)
    }
}
