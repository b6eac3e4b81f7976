import VoiceCodec
import VoiceCore

/// How a `VoiceReceiveStream` buffers, times and repairs one remote speaker's packets.
///
/// The defaults are for game voice over the internet: the target delay is the 95th percentile
/// of the measured arrival delays plus one frame (the frame of margin lets the packet after a
/// lost one arrive in time to repair it from its redundancy or in-band FEC), never above a
/// 200 ms ceiling, which is about where conversation starts to suffer.
public struct JitterBufferConfiguration: Sendable, Hashable {
    /// Which decoder turns a redundant (RED-like) copy of a lost frame back into audio.
    public enum RedundancyDecoding: String, Sendable, Hashable, CaseIterable {
        /// The stream's own decoder: its overlap and prediction state continues from the frame
        /// before, so the repaired frame joins the audio on both sides without a seam.
        case mainDecoder
        /// A second decoder that sees only redundant copies: its state never matches the
        /// frames around the gap.
        case separateDecoder
    }

    public var frameDuration: FrameDuration
    /// The hard ceiling: above it, frames are dropped at once to catch up.
    public var hardCeilingMilliseconds: Double
    /// The target delay never goes above this: the delay budget's share for buffering
    /// (`DelayBudget.bufferingMilliseconds`); nil takes the shipped budget's for `frameDuration`.
    public var bufferingMilliseconds: Double?
    /// The target delay never goes below this.
    public var minimumDelayMilliseconds: Double
    /// The share of packets that should arrive in time (0.5…0.9999).
    public var targetPercentile: Double
    /// Margin added to the percentile, in frames.
    public var targetMarginFrames: Double
    /// Per-packet forgetting factor of the arrival-delay histogram (0.998 ≈ the last 500
    /// packets, 10 s at 20 ms).
    public var histogramForgettingFactor: Double
    /// How long the stream conceals while its speaker said it was speaking but no packet came,
    /// before treating the stream as silent.
    public var maximumUnderflowConcealmentMilliseconds: Double
    /// A repaired frame quieter than this counts as quiet: the next frame may then be repeated
    /// to move the delay toward its target.
    public var lowEnergyDBFS: Float
    public var redundancyDecoding: RedundancyDecoding
    /// Packets held at most; each slot holds one Opus frame.
    public var slotCount: Int
    /// Whether a delay far over its target is shed inside a talk spurt by squeezing the speech a
    /// pitch period at a time (`PlayoutStretching`) instead of skipping its low-energy frames.
    /// Off by default: any move of the timeline inside speech costs PESQ-WB, and a skipped quiet
    /// frame costs less than the squeezing (`bench/run quality` compares the two).
    public var timeStretching: Bool

    public init(
        frameDuration: FrameDuration = VoiceDefaults.frameDuration,
        hardCeilingMilliseconds: Double = 200,
        bufferingMilliseconds: Double? = nil,
        minimumDelayMilliseconds: Double = 0,
        targetPercentile: Double = 0.95,
        targetMarginFrames: Double = 1,
        histogramForgettingFactor: Double = 0.998,
        maximumUnderflowConcealmentMilliseconds: Double = 100,
        lowEnergyDBFS: Float = -45,
        redundancyDecoding: RedundancyDecoding = .mainDecoder,
        slotCount: Int = 128,
        timeStretching: Bool = false
    ) {
        self.frameDuration = frameDuration
        self.hardCeilingMilliseconds = hardCeilingMilliseconds
        self.bufferingMilliseconds = bufferingMilliseconds
        self.minimumDelayMilliseconds = minimumDelayMilliseconds
        self.targetPercentile = targetPercentile
        self.targetMarginFrames = targetMarginFrames
        self.histogramForgettingFactor = histogramForgettingFactor
        self.maximumUnderflowConcealmentMilliseconds = maximumUnderflowConcealmentMilliseconds
        self.lowEnergyDBFS = lowEnergyDBFS
        self.redundancyDecoding = redundancyDecoding
        self.slotCount = slotCount
        self.timeStretching = timeStretching
    }

    /// The target's ceiling in force: `bufferingMilliseconds`, else the shipped budget's
    /// buffering share, never above the hard ceiling.
    public var targetCeilingMilliseconds: Double {
        let budgeted =
            bufferingMilliseconds ?? DelayBudget.standard(frameDuration: frameDuration).bufferingMilliseconds
        return min(budgeted, hardCeilingMilliseconds)
    }

    /// The most squeezing changes the pace of speech, as a share of the samples played (see
    /// `timeStretching`).
    public static let maximumStretchRate = 0.1

    /// Throws `.invalidArgument` naming the first setting out of range.
    public func validate(operation: String = "JitterBufferConfiguration.validate") throws(CodecError) {
        guard hardCeilingMilliseconds.isFinite, hardCeilingMilliseconds >= frameDuration.milliseconds,
            hardCeilingMilliseconds <= 2_000
        else {
            throw CodecError.invalidSetting(
                operation, setting: "hardCeilingMilliseconds", value: "\(hardCeilingMilliseconds)",
                allowed: "one frame (\(frameDuration)) … 2000 ms")
        }
        if let bufferingMilliseconds {
            guard bufferingMilliseconds.isFinite, bufferingMilliseconds >= frameDuration.milliseconds else {
                throw CodecError.invalidSetting(
                    operation, setting: "bufferingMilliseconds", value: "\(bufferingMilliseconds)",
                    allowed: "one frame (\(frameDuration)) or more")
            }
        }
        guard minimumDelayMilliseconds.isFinite, minimumDelayMilliseconds >= 0,
            minimumDelayMilliseconds <= hardCeilingMilliseconds
        else {
            throw CodecError.invalidSetting(
                operation, setting: "minimumDelayMilliseconds", value: "\(minimumDelayMilliseconds)",
                allowed: "0 … hardCeilingMilliseconds (\(hardCeilingMilliseconds))")
        }
        guard targetPercentile >= 0.5, targetPercentile <= 0.9999 else {
            throw CodecError.invalidSetting(
                operation, setting: "targetPercentile", value: "\(targetPercentile)", allowed: "0.5 … 0.9999")
        }
        guard targetMarginFrames.isFinite, targetMarginFrames >= 0, targetMarginFrames <= 10 else {
            throw CodecError.invalidSetting(
                operation, setting: "targetMarginFrames", value: "\(targetMarginFrames)", allowed: "0 … 10")
        }
        guard histogramForgettingFactor >= 0.9, histogramForgettingFactor < 1 else {
            throw CodecError.invalidSetting(
                operation, setting: "histogramForgettingFactor", value: "\(histogramForgettingFactor)",
                allowed: "0.9 … <1")
        }
        guard maximumUnderflowConcealmentMilliseconds.isFinite, maximumUnderflowConcealmentMilliseconds >= 0 else {
            throw CodecError.invalidSetting(
                operation, setting: "maximumUnderflowConcealmentMilliseconds",
                value: "\(maximumUnderflowConcealmentMilliseconds)",
                allowed: "0 ms or more")
        }
        let needed = Int((hardCeilingMilliseconds / frameDuration.milliseconds).rounded(.up)) + 8
        guard slotCount >= needed, slotCount <= 4_096 else {
            throw CodecError.invalidSetting(
                operation, setting: "slotCount", value: "\(slotCount)",
                allowed: "\(needed) (the ceiling in frames plus 8) … 4096; raise it or lower hardCeilingMilliseconds")
        }
    }
}
