import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a mix of many loud speakers inside (−1, 1) without wrapping or hard clipping, and leaves
/// everything below its threshold untouched.
///
/// Two stages, neither of which looks ahead (a look-ahead would add its length to the latency):
///
/// 1. A gain computer: wherever a sample's magnitude exceeds `thresholdDBFS`, the gain that would
///    bring it down to the threshold becomes the target; the applied gain moves towards a lower
///    target with the short `attackSeconds` and back up towards 1 with the longer
///    `releaseSeconds`, so the gain rides the envelope instead of the waveform (little
///    distortion) and pumps slowly.
/// 2. A safety net for what the gain computer lets through while it attacks: above `kneeDBFS`
///    the magnitude is bent smoothly (a tanh curve with slope 1 at the knee) towards a ceiling
///    just below full scale, so no output sample ever reaches ±1.
///
/// While the gain is exactly 1 and the signal stays below the knee, output samples are the input
/// samples bit for bit. The gain snaps back to exactly 1 once it is within 1e-5 of it (a step 100 dB below the signal). Non-finite
/// input samples (NaN, ±infinity) become 0, so one corrupt stream cannot poison the mix.
/// `process` neither allocates nor locks.
public struct SoftLimiter: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Peaks above this are brought down to it by the gain computer.
        public var thresholdDBFS: Float
        /// Where the soft-clipping curve starts; at or above the threshold.
        public var kneeDBFS: Float
        /// The magnitude the soft clipper approaches but never reaches; below 1.
        public var ceiling: Float
        public var attackSeconds: Double
        public var releaseSeconds: Double

        public init(
            thresholdDBFS: Float = -1,
            kneeDBFS: Float = -1,
            ceiling: Float = 0.999,
            attackSeconds: Double = 0.000_5,
            releaseSeconds: Double = 0.150
        ) {
            self.thresholdDBFS = thresholdDBFS
            self.kneeDBFS = kneeDBFS
            self.ceiling = ceiling
            self.attackSeconds = attackSeconds
            self.releaseSeconds = releaseSeconds
        }

        public func validate() throws(DSPSettingError) {
            try DSPSettingError.check(
                thresholdDBFS, in: -40...0, component: "SoftLimiter", setting: "thresholdDBFS", unit: " dBFS")
            try DSPSettingError.check(
                kneeDBFS, in: thresholdDBFS...0, component: "SoftLimiter", setting: "kneeDBFS", unit: " dBFS")
            let knee = Self.linear(kneeDBFS)
            guard ceiling.isFinite, ceiling > knee, ceiling < 1 else {
                throw DSPSettingError(
                    component: "SoftLimiter", setting: "ceiling", value: "\(ceiling)",
                    allowed: "a magnitude above the knee (\(knee)) and below 1")
            }
            try DSPSettingError.check(
                attackSeconds, in: 0...0.1, component: "SoftLimiter", setting: "attackSeconds", unit: " s")
            try DSPSettingError.check(
                releaseSeconds, in: 0.001...10, component: "SoftLimiter", setting: "releaseSeconds", unit: " s")
        }

        static func linear(_ dbfs: Float) -> Float { powf(10, dbfs / 20) }
    }

    public let configuration: Configuration
    public let sampleRate: Int

    /// The gain the gain computer applies now (1 = untouched).
    public var gain: Float { 1 - reduction }
    /// Samples processed with a gain below 1 or bent by the soft clipper, since creation or `reset`.
    public private(set) var limitedSamples = 0

    private var reduction: Float = 0
    private let threshold: Float
    private let knee: Float
    private let kneeRange: Float
    private let attackCoefficient: Float
    private let releaseCoefficient: Float

    public init(_ configuration: Configuration = Configuration(), sampleRate: Int = engineSampleRate)
        throws(DSPSettingError)
    {
        try configuration.validate()
        guard (8_000...192_000).contains(sampleRate) else {
            throw DSPSettingError(
                component: "SoftLimiter", setting: "sampleRate", value: "\(sampleRate) Hz", allowed: "8000…192000 Hz")
        }
        self.configuration = configuration
        self.sampleRate = sampleRate
        threshold = Configuration.linear(configuration.thresholdDBFS)
        knee = Configuration.linear(configuration.kneeDBFS)
        kneeRange = configuration.ceiling - knee
        attackCoefficient = Self.coefficient(seconds: configuration.attackSeconds, sampleRate: sampleRate)
        releaseCoefficient = Self.coefficient(seconds: configuration.releaseSeconds, sampleRate: sampleRate)
    }

    /// One-pole smoothing step per sample for a time constant; 0 s means "at once".
    private static func coefficient(seconds: Double, sampleRate: Int) -> Float {
        guard seconds > 0 else { return 1 }
        return Float(1 - exp(-1 / (seconds * Double(sampleRate))))
    }

    /// The current gain reduction in dB (0 when untouched).
    public var gainReductionDB: Float { -20 * log10f(gain) }

    /// Limits `frame` in place.
    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        // The state is the gain *reduction* (1 − gain): near unity gain, steps of the release are
        // far smaller than a Float's resolution around 1 and the gain would stall just below it;
        // near 0 the reduction keeps full precision and decays all the way.
        var reduction = self.reduction
        // The usual block: no gain reduction under way and every sample finite and below the
        // threshold, which the loop below would leave as it is, sample by sample.
        if reduction == 0, Self.isFiniteAndWithin(frame, limit: threshold) { return }
        var limited = 0
        for index in frame.indices {
            var sample = frame[index]
            if !sample.isFinite { sample = 0 }
            let magnitude = abs(sample)
            let targetReduction: Float = magnitude > threshold ? 1 - threshold / magnitude : 0
            if targetReduction > reduction {
                reduction += (targetReduction - reduction) * attackCoefficient
            } else if reduction > 0 {
                reduction -= (reduction - targetReduction) * releaseCoefficient
                if reduction < 1e-5 { reduction = 0 }
            }
            if reduction > 0 {
                sample *= 1 - reduction
                limited += 1
            }
            let bent = abs(sample)
            if bent > knee {
                let curved = knee + kneeRange * tanhf((bent - knee) / kneeRange)
                sample = sample < 0 ? -curved : curved
                if reduction == 0 { limited += 1 }
            }
            frame[index] = sample
        }
        self.reduction = reduction
        limitedSamples += limited
    }

    /// Whether every sample of `frame` lies in −`limit`…`limit` (NaN does not), eight at a time.
    private static func isFiniteAndWithin(_ frame: UnsafeMutableBufferPointer<Float>, limit: Float) -> Bool {
        guard let base = frame.baseAddress else { return true }
        let lanes = frame.count / 8
        var within = SIMDMask<SIMD8<Int32>>(repeating: true)
        for lane in 0..<lanes {
            let samples = UnsafeRawPointer(base + lane * 8).loadUnaligned(as: SIMD8<Float>.self)
            within .&= (samples .<= limit) .& (samples .>= -limit)
        }
        guard all(within) else { return false }
        for index in (lanes * 8)..<frame.count where !(abs(frame[index]) <= limit) { return false }
        return true
    }

    /// Back to unity gain.
    public mutating func reset() {
        reduction = 0
        limitedSamples = 0
    }
}
