import Testing
import VoiceCore
import VoiceMedia

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SoftLimiterTests {
    /// Limits `signal` in 20 ms frames, as the mixer does, and returns the output.
    private static func limit(_ signal: [Float], _ limiter: inout SoftLimiter) -> [Float] {
        var output = signal
        output.withUnsafeMutableBufferPointer { all in
            var start = 0
            while start < all.count {
                let end = min(start + 960, all.count)
                limiter.process(UnsafeMutableBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
        return output
    }

    /// Eight speakers at full scale: sines at unrelated frequencies whose peaks line up now and then.
    private static func eightLoudSpeakers(seconds: Double) -> [Float] {
        let frequencies = [110.0, 173, 229, 311, 397, 443, 521, 617]
        let count = Int(seconds * 48_000)
        return (0..<count).map { index in
            var sum: Float = 0
            for frequency in frequencies {
                sum += Float(sin(2 * Double.pi * frequency * Double(index) / 48_000))
            }
            return sum
        }
    }

    private static func maximumStep(_ signal: [Float]) -> Float {
        zip(signal.dropFirst(), signal).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    @Test func eightFullScaleSpeakersNeverReachFullScale() throws {
        // Half a second of silence first, so the onset hits the limiter at unity gain.
        let input = [Float](repeating: 0, count: 24_000) + Self.eightLoudSpeakers(seconds: 3)
        #expect(input.map(abs).max()! > 6)
        var limiter = try SoftLimiter()
        let output = Self.limit(input, &limiter)
        let peak = output.map(abs).max()!
        #expect(peak < 1)
        #expect(peak > 0.89)  // limited to the threshold, not squashed far below it
        #expect(output.allSatisfy { $0.isFinite })
        // Nothing wraps: output keeps the sign of the input wherever the input is clearly nonzero.
        #expect(zip(input, output).allSatisfy { abs($0.0) < 0.01 || ($0.0 > 0) == ($0.1 > 0) })
        #expect(limiter.gainReductionDB > 12)
    }

    @Test func outputHasNoDiscontinuities() throws {
        let input = [Float](repeating: 0, count: 24_000) + Self.eightLoudSpeakers(seconds: 2)
        var limiter = try SoftLimiter()
        let output = Self.limit(input, &limiter)
        // A wrap jumps by up to 2 between samples; the limited signal never moves faster than
        // the input does at its steepest (its zero crossings, which pass at unity gain).
        let inputStep = Self.maximumStep(input)
        let outputStep = Self.maximumStep(output)
        #expect(outputStep <= inputStep + 1e-6, "largest step \(outputStep), input's \(inputStep)")
        // Once the gain has settled (after the onset) the steps are those of the input times a
        // gain near threshold / peak: the gain rides the envelope, not the waveform.
        let steady = Array(output[36_000...])
        #expect(Self.maximumStep(steady) < inputStep * 0.25)
    }

    @Test func signalsWellBelowTheThresholdPassBitForBit() throws {
        // A -20 dBFS sine (peak 0.1), also after the limiter has worked on a loud passage and released.
        let quiet = TestSignalFrames.sine(amplitude: 0.1, frames: 48_000)
        var limiter = try SoftLimiter()
        let untouched = Self.limit(quiet, &limiter) == quiet
        #expect(untouched)
        #expect(limiter.limitedSamples == 0)

        _ = Self.limit(Self.eightLoudSpeakers(seconds: 0.5), &limiter)
        #expect(limiter.gain < 1)
        // From about -19 dB of reduction, a 150 ms release is within 1e-5 of unity after about 1.7 s.
        let released = Self.limit(quiet + quiet + quiet, &limiter)
        #expect(limiter.gain == 1)
        let untouchedAfterRelease = Array(released[96_000...]) == quiet
        #expect(untouchedAfterRelease)
    }

    @Test func nonFiniteSamplesBecomeSilence() throws {
        var limiter = try SoftLimiter()
        let output = Self.limit([0.1, .nan, .infinity, -.infinity, 0.1], &limiter)
        let cleaned = output == [0.1, 0, 0, 0, 0.1]
        #expect(cleaned)
    }

    /// A quiet frame is passed through whole, eight samples at a time; one sample in it that is not
    /// finite or is over the threshold, wherever it lies, must still be seen.
    @Test func oneSampleInAQuietFrameIsSeenWhereverItLies() throws {
        let quiet = (0..<960).map { Float(sin(Double($0) * 0.05)) * 0.5 }
        for position in [0, 7, 8, 500, 951, 959] {
            for odd: Float in [.nan, .infinity, 0.99, -0.99] {
                var limiter = try SoftLimiter()
                var frame = quiet
                frame[position] = odd
                let output = Self.limit(frame, &limiter)
                if odd.isFinite {
                    #expect(abs(output[position]) < 0.99, "\(odd) at \(position)")
                    #expect(limiter.limitedSamples > 0, "\(odd) at \(position)")
                } else {
                    #expect(output[position] == 0, "\(odd) at \(position)")
                }
                #expect(output[..<position] == quiet[..<position], "\(odd) at \(position)")
            }
        }
    }

    @Test func rejectsACeilingAtFullScale() {
        #expect(throws: DSPSettingError.self) { try SoftLimiter(SoftLimiter.Configuration(ceiling: 1)) }
        #expect(throws: DSPSettingError.self) { try SoftLimiter(SoftLimiter.Configuration(kneeDBFS: -6)) }
    }
}
