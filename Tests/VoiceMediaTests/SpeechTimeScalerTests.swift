import Foundation
import Testing
import VoiceCore
import VoiceSimulation

@testable import VoiceMedia

@Suite("Speech time scaler")
struct SpeechTimeScalerTests {
    static let frame = 960
    /// A voiced sound's stand-in: a 240 Hz tone with two overtones, a period of 200 samples.
    static let period = 200

    static func voiced(count: Int, amplitude: Float = 0.3) -> [Float] {
        (0..<count).map { index in
            let phase = 2 * Float.pi * Float(index) / Float(period)
            return amplitude * (sin(phase) + 0.5 * sin(2 * phase + 0.3) + 0.25 * sin(3 * phase + 1.1))
        }
    }

    static func noise(count: Int, amplitude: Float, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in amplitude * Float(random.nextUnit() * 2 - 1) }
    }

    static func drain(_ scaler: SpeechTimeScaler) -> [Float] {
        var out = [Float](repeating: 0, count: scaler.count)
        out.withUnsafeMutableBufferPointer { scaler.take(into: $0) }
        return out
    }

    static func scaler(holding samples: [Float]) -> SpeechTimeScaler {
        let scaler = SpeechTimeScaler(frameSamples: frame)
        samples.withUnsafeBufferPointer { scaler.append($0) }
        return scaler
    }

    /// Squeezing a periodic wave removes whole periods, and what is left is the same wave,
    /// continued without a seam: the crossfade joins two stretches that are alike.
    @Test func shorteningAVoicedSoundRemovesWholePeriodsWithoutASeam() {
        let wave = Self.voiced(count: 2 * Self.frame)
        let scaler = Self.scaler(holding: Array(wave[0..<Self.frame]))
        let removed = scaler.shorten(maximum: SpeechTimeScaler.longestStretch)
        #expect(removed >= SpeechTimeScaler.shortestStretch && removed <= SpeechTimeScaler.longestStretch)
        #expect(removed % Self.period == 0, "removed \(removed) samples, not whole periods of \(Self.period)")
        let left = Self.drain(scaler)
        #expect(left.count == Self.frame - removed)
        let error = zip(left, wave).map { abs($0 - $1) }.max()!
        #expect(error < 1e-3, "the squeezed wave differs from the wave by up to \(error)")
    }

    /// Loud noise repeats nowhere: no seam is good enough inside speech, and nothing changes. The
    /// same noise 60 dB quieter is taken as a quiet stretch, where any seam will do.
    @Test func loudNoiseIsLeftAloneAndQuietNoiseIsNot() {
        let loud = Self.noise(count: Self.frame, amplitude: 0.3, seed: 5)
        let scaler = Self.scaler(holding: loud)
        #expect(scaler.shorten(maximum: SpeechTimeScaler.longestStretch) == 0)
        #expect(Self.drain(scaler) == loud)

        let quiet = Self.scaler(holding: Self.noise(count: Self.frame, amplitude: 0.0003, seed: 5))
        #expect(quiet.shorten(maximum: SpeechTimeScaler.longestStretch) >= SpeechTimeScaler.shortestStretch)
    }

    /// A stretch shorter than the shortest pitch period, or more than waits, is never made.
    @Test func aStretchIsMadeOnlyWhereItFits() {
        let scaler = Self.scaler(holding: Self.voiced(count: Self.frame))
        #expect(scaler.shorten(maximum: SpeechTimeScaler.shortestStretch - 1) == 0)
        #expect(scaler.count == Self.frame)
        let short = Self.scaler(holding: Self.voiced(count: SpeechTimeScaler.overlap + 100))
        #expect(short.shorten(maximum: SpeechTimeScaler.longestStretch) == 0)
        #expect(short.count == SpeechTimeScaler.overlap + 100)
    }

    /// What waits comes out oldest first, a frame at a time, with silence after the last of it.
    @Test func takingGivesTheOldestSamplesAndSilenceAfterThem() {
        let scaler = Self.scaler(holding: [1, 2, 3])
        [4, 5].withUnsafeBufferPointer { scaler.append($0) }
        var out = [Float](repeating: 9, count: 2)
        out.withUnsafeMutableBufferPointer { scaler.take(into: $0) }
        #expect(out == [1, 2])
        out = [Float](repeating: 9, count: 5)
        out.withUnsafeMutableBufferPointer { scaler.take(into: $0) }
        #expect(out == [3, 4, 5, 0, 0])
        #expect(scaler.count == 0)
    }
}
