import VoiceCore

/// The playout policy of one receive stream, in one place: the delay its playout position aims
/// for, and the band around it inside which the position is left alone.
///
/// **Target.** A high percentile of the packets' relative arrival delays, plus a frame of margin,
/// plus the frames the sender's repair reaches back (`noteProtection`), kept within the
/// configured minimum and the delay budget's share for buffering (the ceiling).
///
/// **Band.** The playout delay is kept between `target + lowerBand` and `target + upperBand`.
/// Steps are whole frames, so the band is at least a frame wide (plus 2 ms so that wobbles of the
/// target do not cause a skip and a repeat in turn); it sits mostly below the target because the
/// target already holds a frame of margin over the delay percentile, and every millisecond above
/// it is latency. Once the percentile has seen `matureEstimatePackets` packets, the floor is at
/// most 1.5 ms over it, whatever the frame: a stream may sit that low, and a step for a surplus
/// frame may take it there (see `SurplusFrameWatch`). Before that, and while the ceiling holds the
/// target below what the delays and the repair reach want, the band keeps to a frame and 2 ms
/// under its top. A young percentile underestimates the jitter, and a frame inserted later falls
/// inside speech; under the ceiling, every millisecond of buffering repairs more.
struct PlayoutTarget {
    let configuration: JitterBufferConfiguration
    let frameMilliseconds: Double
    /// The delay the playout position aims for, ms.
    private(set) var milliseconds: Double = 0
    /// What the target would be without the ceiling.
    private(set) var wantedMilliseconds: Double = 0
    /// The most the target may be: the delay budget's share for buffering.
    var ceilingMilliseconds: Double {
        didSet { update(quantile: quantile) }
    }
    /// Frames of repair the sender's packets carry, and when that was last seen.
    private(set) var protectionFrames = 0
    private var protectionSeen: MediaTime = 0
    /// The arrival-delay percentile the target was last computed from.
    private var quantile = 0.0

    /// Protection that stops is forgotten after this long.
    static let protectionMemory: MediaTime = 2 * MediaTime.nanosecondsPerSecond

    init(configuration: JitterBufferConfiguration) {
        self.configuration = configuration
        frameMilliseconds = configuration.frameDuration.milliseconds
        ceilingMilliseconds = configuration.targetCeilingMilliseconds
        update(quantile: 0)
    }

    /// Recomputes the target from the arrival delays' percentile, ms.
    mutating func update(quantile: Double) {
        self.quantile = quantile
        wantedMilliseconds =
            quantile + (configuration.targetMarginFrames + Double(protectionFrames)) * frameMilliseconds
        let ceiling = min(ceilingMilliseconds, configuration.hardCeilingMilliseconds)
        milliseconds = min(max(wantedMilliseconds, configuration.minimumDelayMilliseconds), ceiling)
    }

    /// Notes how many frames back the sender's latest packet lets a lost frame be rebuilt (a
    /// redundant copy k frames back, or in-band FEC). The buffer must hold that many frames more
    /// than the network's jitter needs, or the repair arrives after its frame was concealed, as
    /// NetEq accounts for FEC. More protection counts at once; less only once the larger has not
    /// been seen for `protectionMemory`. Takes effect at the next `update`.
    mutating func noteProtection(frames: Int, at arrival: MediaTime) {
        // The target is clamped to the ceiling anyway; this only keeps the count meaningful.
        let frames = min(frames, Int(configuration.hardCeilingMilliseconds / frameMilliseconds))
        if frames >= protectionFrames || arrival - protectionSeen > Self.protectionMemory {
            protectionFrames = frames
            protectionSeen = arrival
        }
    }

    /// Whether the ceiling holds the target under what it would be.
    var isHeldByCeiling: Bool { milliseconds < wantedMilliseconds }

    /// Whether the percentile has seen too few packets to sit low on it.
    var isEstimateYoung = true

    /// Packets after which the percentile is trusted for the band's lower floor: 2 s at 20 ms frames.
    static let matureEstimatePackets = 100

    /// How far under the target the band reaches, ms (negative).
    var lowerBand: Double {
        isHeldByCeiling || isEstimateYoung
            ? upperBand - frameMilliseconds - 2 : -frameMilliseconds + min(0.25 * frameMilliseconds - 1, 1.5)
    }
    /// How far over the target the band reaches, ms.
    var upperBand: Double { 0.25 * frameMilliseconds + 1 }
    /// A frame over the band: more than the target's wobbles or clock drift ever put there. A
    /// delay this far over its target came from time the listener lost (a device that missed
    /// cycles or an engine that stalled, while packets kept coming) or from a network that got
    /// faster; every low-energy frame inside a spurt may then be skipped, so that the excess is
    /// gone within the next quiet stretch of speech instead of lasting until the speaker pauses.
    var farAboveBand: Double { upperBand + frameMilliseconds }

    /// Whether a playout delay is over the top of the band around the ceiling, so over the delay
    /// budget: it is shed inside speech as a delay far over its target is, whatever the target wants.
    func isOverBudget(_ playoutDelay: Double) -> Bool { playoutDelay > ceilingMilliseconds + upperBand }
}
