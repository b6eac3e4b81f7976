import Foundation
import VoiceCore

/// The level of a stream of audio every 10 ms, kept for `echo-test` to find by how much what the
/// speaker played lags what the microphone captured.
///
/// `add` runs on the engine thread and allocates nothing (the blocks are made at creation, enough
/// for `seconds`; later audio is not kept). Read `levels` only once the engine has stopped.
final class LevelEnvelope: @unchecked Sendable {
    static let blockSamples = engineSampleRate / 100
    private let levels: UnsafeMutableBufferPointer<Float>
    private(set) var blocks = 0
    private var energy: Float = 0
    private var samplesInBlock = 0
    /// When the first sample came, on the monotonic clock.
    private(set) var startedAt: MediaTime?

    init(seconds: Int) {
        levels = .allocate(capacity: seconds * 100)
        levels.initialize(repeating: 0)
    }

    deinit { levels.deallocate() }

    func add(_ samples: UnsafeBufferPointer<Float>) {
        if startedAt == nil, !samples.isEmpty { startedAt = MediaTime.monotonicNow() }
        for sample in samples {
            energy += sample * sample
            samplesInBlock += 1
            guard samplesInBlock == Self.blockSamples else { continue }
            if blocks < levels.count {
                levels[blocks] = 10 * log10(max(energy / Float(Self.blockSamples), 1e-10))
                blocks += 1
            }
            energy = 0
            samplesInBlock = 0
        }
    }

    /// Levels in dBFS, one per 10 ms block.
    var values: [Float] { Array(levels.prefix(blocks)) }
}

/// A microphone whose captured audio also goes to a `LevelEnvelope`.
final class EnvelopeInput: WrappingAudioInput {
    let wrapped: any AudioInput
    let envelope: LevelEnvelope

    init(_ device: any AudioInput, envelope: LevelEnvelope) {
        wrapped = device
        self.envelope = envelope
    }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        let frames = wrapped.read(into: buffer)
        envelope.add(UnsafeBufferPointer(rebasing: buffer[0..<frames * format.channels]))
        return frames
    }
}

/// A speaker whose queued audio also goes to a `LevelEnvelope`.
final class EnvelopeOutput: WrappingAudioOutput {
    let wrapped: any AudioOutput
    let envelope: LevelEnvelope

    init(_ device: any AudioOutput, envelope: LevelEnvelope) {
        wrapped = device
        self.envelope = envelope
    }

    func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        let frames = wrapped.write(samples)
        envelope.add(UnsafeBufferPointer(rebasing: samples[0..<frames * format.channels]))
        return frames
    }
}

/// By how much one envelope lags another: the lag of the highest correlation of their levels.
enum EnvelopeLag {
    struct Result: Sendable, Hashable {
        var milliseconds: Double
        /// Pearson correlation at that lag, 0…1: below 0.5 nothing was matched.
        var correlation: Double
    }

    /// `played` against `captured`, lags 0…`maximumMilliseconds`; `startOffsetMilliseconds` is
    /// how much later `played` began counting. Nil when either is too short or silent throughout.
    static func measure(
        captured: [Float], played: [Float], startOffsetMilliseconds: Double, maximumMilliseconds: Double = 1_000
    ) -> Result? {
        let floor: Float = -70
        let input = captured.map { Double(max($0, floor)) }
        let output = played.map { Double(max($0, floor)) }
        let offsetBlocks = Int((startOffsetMilliseconds / 10).rounded())
        var best: (lag: Int, correlation: Double)?
        var scores: [Int: Double] = [:]
        for lag in 0...Int(maximumMilliseconds / 10) {
            // Block k of the input shows up as block k + lag − offset of the output.
            let shift = lag - offsetBlocks
            let pairs = input.indices.compactMap { index -> (Double, Double)? in
                let other = index + shift
                return output.indices.contains(other) ? (input[index], output[other]) : nil
            }
            guard pairs.count >= 100, let correlation = pearson(pairs) else { continue }
            scores[lag] = correlation
            if correlation > (best?.correlation ?? -1) { best = (lag, correlation) }
        }
        guard let best else { return nil }
        // A parabola through the peak and its neighbours places it between blocks.
        var lag = Double(best.lag)
        if let before = scores[best.lag - 1], let after = scores[best.lag + 1] {
            let curvature = before - 2 * best.correlation + after
            if curvature < 0 { lag += 0.5 * (before - after) / curvature }
        }
        return Result(milliseconds: lag * 10, correlation: best.correlation)
    }

    private static func pearson(_ pairs: [(Double, Double)]) -> Double? {
        let count = Double(pairs.count)
        let meanX = pairs.reduce(0) { $0 + $1.0 } / count
        let meanY = pairs.reduce(0) { $0 + $1.1 } / count
        var covariance = 0.0
        var varianceX = 0.0
        var varianceY = 0.0
        for (x, y) in pairs {
            covariance += (x - meanX) * (y - meanY)
            varianceX += (x - meanX) * (x - meanX)
            varianceY += (y - meanY) * (y - meanY)
        }
        guard varianceX > 0, varianceY > 0 else { return nil }
        return covariance / (varianceX * varianceY).squareRoot()
    }
}
