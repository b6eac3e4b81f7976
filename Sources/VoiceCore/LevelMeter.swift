#if canImport(Glibc)
    import Glibc
#endif

/// RMS and peak level of a signal in dBFS, with meter ballistics.
///
/// A raw per-frame level flickers too fast to read and to drive UI; a meter rises quickly so
/// that onsets show at once (attack) and falls slowly so that speech reads as a steady level
/// (release). RMS is smoothed as power with separate attack and release time constants; the
/// peak jumps up at once and falls at a fixed rate in dB per second, as peak-programme
/// meters do.
///
/// Levels are relative to full scale: a full-scale square wave is 0 dBFS RMS and a full-scale
/// sine about −3 dBFS RMS; silence reads `LevelMeter.floorDBFS`. `process` neither allocates
/// nor locks, so it may run on any audio path.
public struct LevelMeter: Sendable {
    /// The level reported for silence, and the lowest level ever reported.
    public static let floorDBFS: Float = -120

    public let attackSeconds: Double
    public let releaseSeconds: Double
    public let peakFallDBPerSecond: Double

    private var smoothedPower: Float = 0
    private var peakLinear: Float = 0
    /// The mean power of the last block processed (linear, not smoothed).
    public private(set) var lastBlockPower: Float = 0
    /// The smoothing and fall factors for the last block length: blocks are a frame long, so
    /// they are worked out once instead of with `exp` and `pow` on every block.
    private var coefficientsBlockSeconds = -1.0
    private var attackKeep: Float = 0
    private var releaseKeep: Float = 0
    private var peakFall: Float = 0

    public init(attackSeconds: Double = 0.010, releaseSeconds: Double = 0.300, peakFallDBPerSecond: Double = 20) {
        self.attackSeconds = attackSeconds
        self.releaseSeconds = releaseSeconds
        self.peakFallDBPerSecond = peakFallDBPerSecond
    }

    /// Folds one block of mono samples at `sampleRate` into the meter.
    public mutating func process(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int = engineSampleRate) {
        guard !samples.isEmpty else { return }
        let (sumOfSquares, blockPeak) = Self.sumOfSquaresAndPeak(samples)
        fold(power: sumOfSquares / Float(samples.count), peak: blockPeak, frames: samples.count, sampleRate: sampleRate)
    }

    /// Folds `frames` of silence into the meter, without samples to read.
    public mutating func processSilence(frames: Int, sampleRate: Int = engineSampleRate) {
        guard frames > 0 else { return }
        fold(power: 0, peak: 0, frames: frames, sampleRate: sampleRate)
    }

    private mutating func fold(power blockPower: Float, peak blockPeak: Float, frames: Int, sampleRate: Int) {
        lastBlockPower = blockPower
        let blockSeconds = Double(frames) / Double(sampleRate)
        if blockSeconds != coefficientsBlockSeconds {
            coefficientsBlockSeconds = blockSeconds
            attackKeep = Float(exp(-blockSeconds / attackSeconds))
            releaseKeep = Float(exp(-blockSeconds / releaseSeconds))
            peakFall = Float(pow(10, -peakFallDBPerSecond * blockSeconds / 20))
        }

        let keep = blockPower > smoothedPower ? attackKeep : releaseKeep
        smoothedPower = keep * smoothedPower + (1 - keep) * blockPower

        if blockPeak >= peakLinear {
            peakLinear = blockPeak
        } else {
            peakLinear = max(blockPeak, peakLinear * peakFall)
        }
    }

    /// Smoothed RMS level in dBFS.
    public var rmsDBFS: Float { Self.decibels(power: smoothedPower) }

    /// Peak level in dBFS, falling at `peakFallDBPerSecond` after the last peak.
    public var peakDBFS: Float { Self.decibels(power: peakLinear * peakLinear) }

    /// Clears the meter to silence.
    public mutating func reset() {
        smoothedPower = 0
        peakLinear = 0
        lastBlockPower = 0
    }

    /// 10·log10(power), floored at `floorDBFS`.
    public static func decibels(power: Float) -> Float {
        guard power > 1e-12 else { return floorDBFS }
        return max(floorDBFS, 10 * log10f(power))
    }

    /// The RMS level of a whole block in dBFS, without ballistics.
    public static func rmsDBFS(of samples: UnsafeBufferPointer<Float>) -> Float {
        guard !samples.isEmpty else { return floorDBFS }
        return decibels(power: meanPower(of: samples))
    }

    /// The mean of the squared samples of a non-empty block.
    public static func meanPower(of samples: UnsafeBufferPointer<Float>) -> Float {
        sumOfSquares(samples) / Float(samples.count)
    }

    /// The sum of the squared samples, eight lanes at a time: every stream is metered every frame,
    /// and a sum carried sample by sample cannot be vectorised by the compiler.
    public static func sumOfSquares(_ samples: UnsafeBufferPointer<Float>) -> Float {
        sumOfSquaresAndPeak(samples).sumOfSquares
    }

    static func sumOfSquaresAndPeak(_ samples: UnsafeBufferPointer<Float>) -> (sumOfSquares: Float, peak: Float) {
        guard let base = samples.baseAddress else { return (0, 0) }
        let vectors = samples.count / 8
        var sums = SIMD8<Float>(repeating: 0)
        // The highest and lowest sample per lane, by masked replacement: the standard library's
        // `pointwiseMax` is not inlined across modules and costs ten times as much here.
        var highs = SIMD8<Float>(repeating: 0)
        var lows = SIMD8<Float>(repeating: 0)
        let raw = UnsafeRawPointer(base)
        for index in 0..<vectors {
            let lanes = raw.loadUnaligned(fromByteOffset: index * 32, as: SIMD8<Float>.self)
            sums += lanes * lanes
            highs.replace(with: lanes, where: lanes .> highs)
            lows.replace(with: lanes, where: lanes .< lows)
        }
        var sum = sums.sum()
        var peak = max(highs.max(), -lows.min())
        for sample in samples[(vectors * 8)...] {
            sum += sample * sample
            peak = max(peak, abs(sample))
        }
        return (sum, peak)
    }
}
