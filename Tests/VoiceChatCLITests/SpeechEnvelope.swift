import Foundation
import VoiceCore
import VoiceDevices

/// Compares what arrived with what was sent by their loudness over time, which survives the codec,
/// the jitter buffer and an unknown delay: 20 ms frames' RMS level in dB, correlated at the best lag.
enum SpeechEnvelope {
    static let frameSamples = 960

    /// RMS level in dBFS of each 20 ms frame of 48 kHz mono samples, floored at -80 dB.
    static func levels(_ samples: [Float]) -> [Double] {
        stride(from: 0, to: samples.count - frameSamples + 1, by: frameSamples).map { start in
            var sum = 0.0
            for index in start..<(start + frameSamples) { sum += Double(samples[index] * samples[index]) }
            return 10 * log10(max(sum / Double(frameSamples), 1e-8))
        }
    }

    static func levels(ofFile path: String) throws -> [Double] {
        let audio = try WAVAudio(contentsOfFile: path)
        return levels(audio.samples)
    }

    /// The best Pearson correlation of `heard[t]` with `sent[t + lag]` over lags from -`before` to
    /// +`after` frames, with at least `minimumOverlap` frames compared; and that lag.
    static func bestMatch(
        heard: [Double], sent: [Double], lags: ClosedRange<Int>, minimumOverlap: Int = 150
    ) -> (correlation: Double, lag: Int) {
        var best = (correlation: -1.0, lag: 0)
        for lag in lags {
            let heardStart = max(0, -lag)
            let count = min(heard.count - heardStart, sent.count - (heardStart + lag))
            guard count >= minimumOverlap else { continue }
            let a = heard[heardStart..<(heardStart + count)]
            let b = sent[(heardStart + lag)..<(heardStart + lag + count)]
            let value = correlation(Array(a), Array(b))
            if value > best.correlation { best = (value, lag) }
        }
        return best
    }

    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        let meanA = a.reduce(0, +) / n
        let meanB = b.reduce(0, +) / n
        var covariance = 0.0, varianceA = 0.0, varianceB = 0.0
        for index in a.indices {
            covariance += (a[index] - meanA) * (b[index] - meanB)
            varianceA += (a[index] - meanA) * (a[index] - meanA)
            varianceB += (b[index] - meanB) * (b[index] - meanB)
        }
        guard varianceA > 0, varianceB > 0 else { return 0 }
        return covariance / (varianceA * varianceB).squareRoot()
    }

    /// Frames louder than -45 dBFS: speech rather than silence or codec noise.
    static func loudFrames(_ levels: [Double]) -> Int {
        levels.filter { $0 > -45 }.count
    }
}
