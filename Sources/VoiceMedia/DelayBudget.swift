import VoiceCodec
import VoiceCore

/// The most mouth-to-ear delay the engine may add, and how it is shared out.
///
/// Part of it is fixed by the frame length: a frame is captured whole before it is encoded, the
/// encoder looks ahead, and the listener's playout and the sender's capture meet at an arbitrary
/// phase of the frame (half a frame on average). What is left is the listener's to buffer: its
/// jitter target, which covers both the network's jitter and the frames a redundant copy or
/// in-band FEC reaches back to repair. The sender keeps its copies within that reach (less
/// the listener's frame of margin), and the listener never targets more than it, so that
/// protection against bursts is chosen inside the budget instead of being paid for in delay.
public struct DelayBudget: Sendable, Hashable {
    /// The budget, in ms.
    public var maximumMilliseconds: Double
    public var frameDuration: FrameDuration

    public init(maximumMilliseconds: Double, frameDuration: FrameDuration) {
        self.maximumMilliseconds = maximumMilliseconds
        self.frameDuration = frameDuration
    }

    /// The shipped budget for `frameDuration`.
    public static func standard(frameDuration: FrameDuration) -> DelayBudget {
        DelayBudget(
            maximumMilliseconds: VoiceDefaults.maximumDelayMilliseconds(frameDuration: frameDuration),
            frameDuration: frameDuration)
    }

    /// Budgets the engine accepts: below 40 ms nothing is left to buffer even at 5 ms frames;
    /// above 1000 ms no conversation is possible.
    public static let allowedMilliseconds = 40.0...1_000.0

    /// The encoder's look-ahead, ms: what the send pipeline's application holds back.
    public var codecLookaheadMilliseconds: Double {
        SendConfiguration.application(for: frameDuration).lookaheadMilliseconds
    }

    /// The part no buffering setting changes: the frame, the look-ahead, and the mean phase
    /// between the sender's capture and the listener's playout (half a frame).
    public var fixedMilliseconds: Double {
        1.5 * frameDuration.milliseconds + codecLookaheadMilliseconds
    }

    /// The most the listener's jitter target may be, ms: the budget less its fixed part, and
    /// never under one frame (a buffer of no frame cannot play at all).
    public var bufferingMilliseconds: Double {
        max(maximumMilliseconds - fixedMilliseconds, frameDuration.milliseconds)
    }

    /// The farthest back a sender's redundant copy may reach, in frames: what the buffering
    /// share holds beyond the listener's frame of margin, at least 1 (the previous frame, which
    /// the listener's margin covers already).
    public var maximumRepairReach: Int { maximumRepairReach(jitterMilliseconds: 0) }

    /// The farthest reach that still fits beside a listener's jitter, given as RFC 3550
    /// interarrival jitter (what receiver reports carry): the listener's target holds a high
    /// percentile of the arrival delays, about three times that figure (2.85 times for uniform
    /// jitter at the 95th percentile), and a copy whose frame the target cannot hold arrives
    /// after that frame was concealed, a waste of the primary's bits.
    public func maximumRepairReach(jitterMilliseconds: Double) -> Int {
        let jitter = jitterMilliseconds.isFinite ? max(jitterMilliseconds, 0) : 0
        let room = bufferingMilliseconds - frameDuration.milliseconds - Self.jitterShareFactor * jitter
        return max(Int((room / frameDuration.milliseconds).rounded(.down)), 1)
    }

    /// The listener's jitter share, in RFC 3550 jitters.
    static let jitterShareFactor = 3.0

    /// Throws `.invalidArgument` when the budget is not a number in `allowedMilliseconds`.
    public func validate(operation: String = "DelayBudget.validate") throws(CodecError) {
        guard maximumMilliseconds.isFinite, Self.allowedMilliseconds.contains(maximumMilliseconds) else {
            throw CodecError.invalidSetting(
                operation, setting: "maximum delay", value: "\(maximumMilliseconds) ms",
                allowed: "40…1000 ms (the engine's own delay, mouth to ear)")
        }
    }
}
