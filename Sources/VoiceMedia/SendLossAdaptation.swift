/// Turns receiver reports into the sender's protection: Opus in-band FEC, the packet-loss hint,
/// and RED-like redundancy: how many earlier frames each packet carries copies of (its depth,
/// 0…2), and how far back the farthest copy reaches.
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
/// * Bursts longer than two are met with *reach* instead of more copies. A burst of L lost
///   packets is repaired whole by a single copy k ≥ L frames back: frame i of the burst (0-based)
///   comes back in packet i + k, past the burst. So under bursty loss each packet carries one copy,
///   `redundancyReach` frames back, and the listener holds that many frames more (see
///   `VoiceReceiveStream`'s target): one copy's bitrate repairs what k consecutive copies would.
///   The reach is the shortest that leaves at most `residualBurstLoss` of the lost frames
///   unrepaired when bursts are geometric with the reported mean m (the Gilbert model: a share
///   ((m − 1) / m)^k), from 3 up to the sender's `reachLimit` (the delay budget's); a mean
///   short enough for a reach of 2 keeps the two near copies. Measured on the quality
///   benchmark's 10 % bursty loss (mean burst 3, 20 ms frames, seed 7): copies 1 and 2 frames
///   back at 24 kbit/s left 30 of 61 lost packets concealed, PESQ-WB 2.13 on average; one copy
///   6 frames back with the primary at 32 kbit/s left 22 of 67 concealed (8 before the first
///   report, 9 in a single 15-packet burst), PESQ-WB 2.87, in fewer bytes (64 kbit/s, not 72).
///   Whether one far copy beats the two near ones is judged on the same model, counting that
///   its one chance is lost when the packet carrying it is (`unrepairedShare(farCopyAt:)`).
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
        /// The share of a burst's lost frames the reach may leave unrepaired (0…1).
        public var residualBurstLoss: Float = 0.1
        /// How much each report that saw loss moves the burst length the reach follows (0…1).
        public var reachSmoothing: Float = 0.25

        public init() {}
    }

    public let configuration: Configuration
    /// Fraction of packets lost (0…1), smoothed over reports.
    public private(set) var fractionLost: Float = 0
    /// Mean loss-burst length in packets (≥ 1), smoothed over reports that saw loss.
    public private(set) var meanBurstLength: Float = 1
    /// The mean length of the bursts behind the reports that saw loss, which the reach follows:
    /// their lost packets over their bursts, each report counting by the bursts it saw and the
    /// older fading by `reachSmoothing` a report, from a prior of bursts of one at the loss that
    /// turns copies on. The reach moves the listener's delay, so it must follow the bursts'
    /// lasting length: one report covers a few losses, and at 10 % independent loss every few
    /// reports shows a mean of 2 by chance (measured: following `meanBurstLength`, which rises at
    /// once, such a call kept switching to a far copy and back and scored PESQ-WB 3.12 instead
    /// of 3.52). Yet real bursts must be met at once: an even average of reports starting from 1
    /// took eight reports to reach 3, the reach climbed a frame at a time and the listener grew
    /// its hold in mid-speech at every step (measured, 10 % bursty loss, seeds 1–8: PESQ-WB 2.77
    /// on average; counted by bursts, 2.89).
    public var steadyMeanBurstLength: Float { burstEvidence.ratio }
    /// The fraction lost over all reports, the older fading as above; divided by the weight
    /// gathered so far, it starts at the first report's value instead of climbing from 0.
    public var steadyFractionLost: Float { reportedLoss.ratio }
    /// Whether the encoder should add in-band FEC: at low loss, before redundancy takes over.
    public var fecEnabled: Bool { fecWanted && redundancyDepth == 0 }
    private var fecWanted = false
    /// How many earlier frames each packet carries copies of: 0, 1 or 2.
    public private(set) var redundancyDepth = 0
    /// How many frames back the farthest copy reaches (0 without copies). Two copies are always
    /// the previous two frames; one copy is the previous frame, or under bursty loss the frame
    /// this far back (3…`reachLimit`).
    public private(set) var redundancyReach = 0
    /// The farthest reach the sender allows: its frame history, and the listener's extra delay.
    public let maximumReach: Int
    /// The farthest reach the delay budget leaves room for now (1…`maximumReach`): the
    /// protection is chosen within it, and two copies need a limit of at least 2.
    public private(set) var reachLimit: Int
    /// The reach the bursts call for, with hysteresis (2 when two near copies do).
    private var burstReach = 2
    /// Lost packets and loss bursts per packet sent, summed over the reports that saw loss with
    /// the older fading, from a prior of bursts of one at the loss that turns copies on: the
    /// steady burst length is their ratio. A first report of long bursts moves it most of the
    /// way at once, one of a chance burst of two among few losses only a little.
    private var burstEvidence: FadingRatio
    /// The fraction lost summed over all reports, and the number of reports, both fading.
    private var reportedLoss = FadingRatio(numerator: 0, denominator: 0)

    /// What share of the near copies' unrepaired frames the far copy may leave, at most, to be taken.
    static let farCopyMargin: Float = 0.85

    /// - Parameter maximumReach: the farthest a copy may reach back, in frames (at least 2).
    public init(_ configuration: Configuration = Configuration(), maximumReach: Int = 2) {
        self.configuration = configuration
        self.maximumReach = max(maximumReach, 2)
        reachLimit = self.maximumReach
        let prior = max(configuration.redundancyOnFractionLost, 0.001)
        burstEvidence = FadingRatio(numerator: prior, denominator: prior)
    }

    /// Keeps copies within `frames` back from now on (clamped to 1…`maximumReach`); protection
    /// reaching farther falls back at once to what fits.
    public mutating func limitReach(to frames: Int) {
        reachLimit = min(max(frames, 1), maximumReach)
        burstReach = min(burstReach, max(reachLimit, 2))
        if redundancyReach > reachLimit {
            redundancyDepth = min(redundancyDepth, reachLimit)
            redundancyReach = redundancyDepth
        }
    }

    /// Folds in one report's figures. Non-finite or negative values count as no loss.
    public mutating func update(fractionLost reported: Float, meanBurstLength reportedBurst: Float) {
        let decay = min(max(configuration.decay, 0), 1)
        let lost = reported.isFinite ? min(max(reported, 0), 1) : 0
        fractionLost = lost >= fractionLost ? lost : decay * fractionLost + (1 - decay) * lost
        let keep = 1 - min(max(configuration.reachSmoothing, 0), 1)
        // A running average from zero would start low and climb for several reports; dividing
        // by the weight it has gathered so far starts it at the first report's value.
        reportedLoss.add(lost, over: 1, keeping: keep)
        if lost > 0 {
            let burst = reportedBurst.isFinite ? max(reportedBurst, 1) : 1
            meanBurstLength = burst >= meanBurstLength ? burst : decay * meanBurstLength + (1 - decay) * burst
            // Each report counts by the bursts behind it (its loss over its burst length, per
            // packet): lost packets over bursts, both summed with the older reports fading.
            burstEvidence.add(lost, over: lost / burst, keeping: keep)
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
        let redundancyOn =
            redundancyDepth == 0
            ? fractionLost >= configuration.redundancyOnFractionLost
            : fractionLost >= configuration.redundancyOffFractionLost
        // One frame of hysteresis downwards, so a mean wobbling across a step does not move the
        // listener's delay back and forth.
        let reach = reachCoveringBursts
        if reach > burstReach || reach < burstReach - 1 { burstReach = reach }
        // The far copy must leave clearly less unrepaired to be taken (15 % less), and stays
        // while it leaves less. Its single copy also leaves the primary frame more bits than two
        // do, which the model does not count: demanding 25 % less kept the near copies at 20 %
        // bursty loss (mean burst 3, seed 7), PESQ-WB 2.37 where the far copy scores 2.50.
        let far = unrepairedShare(farCopyAt: burstReach)
        let near = unrepairedShareOfNearCopies
        let farCopyWins =
            burstReach > 2 && (redundancyReach > 2 ? far < near : far <= Self.farCopyMargin * near)

        if !redundancyOn {
            redundancyDepth = 0
            redundancyReach = 0
        } else if farCopyWins {
            redundancyDepth = 1
            redundancyReach = burstReach
        } else {
            redundancyDepth = min(bursty ? 2 : 1, reachLimit)
            redundancyReach = redundancyDepth
        }
    }

    /// The share of loss bursts' frames beyond `reach` frames from their end, with bursts
    /// geometric of mean `steadyMeanBurstLength`: ((m − 1) / m)^reach.
    private func burstTail(beyond reach: Int) -> Float {
        let mean = max(steadyMeanBurstLength, 1)
        let continuing = (mean - 1) / mean
        var share: Float = 1
        for _ in 0..<reach { share *= continuing }
        return share
    }

    /// What the previous two frames' copies leave unrepaired: frames more than two from the end
    /// of their burst (the packets just after a burst always arrive).
    private var unrepairedShareOfNearCopies: Float { burstTail(beyond: 2) }

    /// What one copy `reach` frames back leaves unrepaired: frames too far from the end of their
    /// burst, and of the rest those whose copy is lost in turn (a later burst, at the loss rate).
    /// The single copy is one chance where the near copies are two, so at high independent loss
    /// the near copies win even with bursts of two.
    private func unrepairedShare(farCopyAt reach: Int) -> Float {
        let tail = burstTail(beyond: reach)
        return tail + steadyFractionLost * (1 - tail)
    }

    /// The shortest reach that leaves at most `residualBurstLoss` of the bursts' frames
    /// unrepaired, within 2…`reachLimit` (2 meaning that the near copies suffice).
    private var reachCoveringBursts: Int {
        let residual = min(max(configuration.residualBurstLoss, 0), 1)
        var reach = 2
        while burstTail(beyond: reach) > residual && reach < reachLimit { reach += 1 }
        return reach
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

/// A ratio of two sums in which every older term fades by the same factor per new one.
private struct FadingRatio: Sendable, Hashable {
    var numerator: Float
    var denominator: Float

    mutating func add(_ numerator: Float, over denominator: Float, keeping keep: Float) {
        self.numerator = keep * self.numerator + numerator
        self.denominator = keep * self.denominator + denominator
    }

    var ratio: Float { denominator > 0 ? numerator / denominator : 0 }
}
