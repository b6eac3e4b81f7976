import Testing

@testable import VoiceMedia

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct FourierTransformTests {
    /// The spectrum by the definition, in doubles.
    private func directSpectrum(_ samples: [Float]) -> [(Double, Double)] {
        let count = samples.count
        return (0...(count / 2)).map { bin in
            var real = 0.0
            var imaginary = 0.0
            for (index, sample) in samples.enumerated() {
                let angle = -2 * Double.pi * Double(bin * index % count) / Double(count)
                real += Double(sample) * cos(angle)
                imaginary += Double(sample) * sin(angle)
            }
            return (real, imaginary)
        }
    }

    @Test(arguments: [480, 96, 120, 60, 30, 2, 6, 10])
    func theSpectrumIsTheDefinitionsAndTheInverseGivesTheSamplesBack(count: Int) throws {
        let transform = try #require(FourierTransform(count: count))
        var generator = UInt64(count)
        let samples: [Float] = (0..<count).map { _ in
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(generator >> 40) / Float(1 << 24) - 0.5
        }
        var real = [Float](repeating: 0, count: count / 2 + 1)
        var imaginary = real
        samples.withUnsafeBufferPointer { input in
            real.withUnsafeMutableBufferPointer { real in
                imaginary.withUnsafeMutableBufferPointer { transform.forward(input, real: real, imaginary: $0) }
            }
        }
        for (bin, expected) in directSpectrum(samples).enumerated() {
            #expect(abs(Double(real[bin]) - expected.0) < 1e-3, "bin \(bin) of \(count)")
            #expect(abs(Double(imaginary[bin]) - expected.1) < 1e-3, "bin \(bin) of \(count)")
        }
        var back = [Float](repeating: 0, count: count)
        real.withUnsafeBufferPointer { real in
            imaginary.withUnsafeBufferPointer { imaginary in
                back.withUnsafeMutableBufferPointer { transform.inverse(real: real, imaginary: imaginary, into: $0) }
            }
        }
        for index in 0..<count { #expect(abs(back[index] - samples[index]) < 1e-5, "sample \(index) of \(count)") }
    }

    @Test func sizesWithOtherPrimeFactorsOrOddAreRefused() {
        #expect(FourierTransform(count: 14) == nil)
        #expect(FourierTransform(count: 15) == nil)
        #expect(FourierTransform(count: 0) == nil)
    }
}
