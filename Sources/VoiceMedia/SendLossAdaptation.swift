/// Turns receiver reports into the sender's protection: Opus in-band FEC, the packet-loss hint,
/// and the depth of RED-like redundancy (copies of the previous one or two frames in each packet).
///
/// Loss estimates rise at once to what a report shows (protection must arrive before the next
/// burst, not after) and fall by `decay` per report (a clean report keeps three quarters of them
/// with the default), so a lull does not drop protection: bursty loss comes in clusters with clean
/// seconds between them (measured, 10 % bursty loss: a decay of 0.5 dropped the copies after 1.5 s
/// without loss and the next burst was concealed; 0.75 keeps them 3.5 s, PESQ-WB 2.07 → 2.13).
/// Every switch has a lower threshold for off
/// than for on, so an estimate hovering near a threshold does not toggle it on every report.
///
/// The thresholds, with the defaults:
/// * FEC on from 1 % loss, off below 0.5 %, and off again while redundancy is on.
/// * Redundancy of one frame from 3 % loss, off below 1.5 %: a lost packet's frame then arrives
///   in the next packet, as exactly the bytes that were lost. The copy decodes bit-exact and
///   leaves the decoder's state as if nothing had been lost, which Opus's FEC (a coarser
///   re-encoding) cannot; and FEC's bits and the loss hint that unlocks them are taken from the
///   primary frame, lowering the quality of every frame that did arrive. So once copies ride
///   along, FEC is switched off and the hint drops to zero.
/// * Two frames by default whenever redundancy is on (`burstyOnMeanBurstLength` 1): even
///   independent loss at 10 % has a mean burst of about 1.1, so one burst in ten is two long, and
///   each of those costs a concealed frame with one copy. Measured on the quality benchmark's calls
///   (10 % random loss, seed 7, 24 kbit/s copies): one copy left 7 of 690 frames concealed and
///   scored PESQ-WB 3.11, two copies left 1 and scored 3.52. Raise the thresholds to keep one
///   copy until reports show bursts.
///
/// The packet-loss hint is the estimate rounded to whole percent, raised to what libopus 1.3.1 needs
/// before it emits any FEC at all at the bitrate (see `packetLossHintPercent(bitrate:)`).
public struct SendLossAdaptation: Sendable, Hashable {
    public struct Configuration: Sendable, Hashable {
        public var fecOnFractionLost: Float = 0.01
        public var fecOffFractionLost: Float = 0.005
        public var redundancyOnFractionLost: Float = 0.03
        public var redundancyOffFractionLost: Float = 0.015
        public var burstyOnMeanBurstLength: Float = 1
        public var burstyOffMeanBurstLength: Float = 1
        /// How much of the old estimate a report showing less loss keeps (0…1).
        public var decay: Float = 0.75
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
    /// Whether the encoder should add in-band FEC: at low loss, before redundancy takes over.
    public var fecEnabled: Bool { fecWanted && redundancyDepth == 0 }
    private var fecWanted = false
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

        if fecWanted {
            if fractionLost < configuration.fecOffFractionLost { fecWanted = false }
        } else if fractionLost >= configuration.fecOnFractionLost {
            fecWanted = true
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
    /// libopus 1.3.1 emits in-band FEC only when the hint and the bitrate allow it: reliably from a
    /// 10 % hint at 24 kbit/s and more, never at 16 kbit/s. While FEC is on, the hint is therefore
    /// at least 10 %, so the FEC we pay for is actually sent; below 24 kbit/s the hint is the plain
    /// estimate and the redundancy does the protecting. While copies ride along the hint is 0.
    public func packetLossHintPercent(bitrate: Int) -> Int {
        guard redundancyDepth == 0 else { return 0 }
        let measured = Int((fractionLost * 100).rounded())
        guard fecEnabled else { return min(measured, configuration.maximumLossHintPercent) }
        // libopus decides per frame whether LBRR fits; with a 5 % hint at 32 kbit/s it
        // often does not for speech at complexity 5 (measured: no FEC in 200 frames), with 10 %
        // it does in most frames, at 24 kbit/s too.
        let minimumForFEC = bitrate >= 24_000 ? 10 : 0
        return min(max(measured, minimumForFEC), configuration.maximumLossHintPercent)
    }
}
