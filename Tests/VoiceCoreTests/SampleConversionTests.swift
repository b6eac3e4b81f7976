import Testing
import VoiceCore

@Suite("SampleConversion")
struct SampleConversionTests {
    @Test("every int16 value survives int16 → float → int16 exactly")
    func int16RoundTripIsExact() {
        let all = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        var floats = [Float](repeating: 0, count: all.count)
        var back = [Int16](repeating: 0, count: all.count)
        all.withUnsafeBufferPointer { source in
            floats.withUnsafeMutableBufferPointer { SampleConversion.convert(source, to: $0) }
        }
        floats.withUnsafeBufferPointer { source in
            back.withUnsafeMutableBufferPointer { SampleConversion.convert(source, to: $0) }
        }
        #expect(back == all)
        #expect(floats.allSatisfy { (-1..<1).contains($0) })
        #expect(floats.first == -1)
    }

    @Test("float → int16 rounds to nearest and saturates instead of wrapping")
    func saturation() {
        #expect(SampleConversion.int16(fromFloat: 0) == 0)
        #expect(SampleConversion.int16(fromFloat: 1) == .max)
        #expect(SampleConversion.int16(fromFloat: 1.5) == .max)
        #expect(SampleConversion.int16(fromFloat: .infinity) == .max)
        #expect(SampleConversion.int16(fromFloat: -1) == .min)
        #expect(SampleConversion.int16(fromFloat: -7) == .min)
        #expect(SampleConversion.int16(fromFloat: -.infinity) == .min)
        #expect(SampleConversion.int16(fromFloat: 0.6 / 32_768) == 1)
        #expect(SampleConversion.int16(fromFloat: 0.4 / 32_768) == 0)
        #expect(SampleConversion.int16(fromFloat: -0.6 / 32_768) == -1)
    }

    @Test("NaN becomes silence")
    func nanIsSilence() {
        #expect(SampleConversion.int16(fromFloat: .nan) == 0)
        #expect(SampleConversion.int16(fromFloat: -.nan) == 0)
        let source: [Float] = [.nan, 0.5, .signalingNaN]
        var destination = [Int16](repeating: 7, count: 3)
        source.withUnsafeBufferPointer { pointer in
            destination.withUnsafeMutableBufferPointer { SampleConversion.convert(pointer, to: $0) }
        }
        #expect(destination == [0, 16_384, 0])
    }

    @Test("conversions stop at the shorter buffer")
    func shorterBufferBounds() {
        let source: [Int16] = [100, 200, 300]
        var destination: [Float] = [9, 9]
        source.withUnsafeBufferPointer { pointer in
            destination.withUnsafeMutableBufferPointer { SampleConversion.convert(pointer, to: $0) }
        }
        #expect(destination == [100 / 32_768, 200 / 32_768])
    }

    @Test("downmix averages the channels of each frame")
    func downmix() {
        let stereo: [Float] = [1, 0, 0.5, 0.5, -1, 1, 0.25, -0.75]
        var mono = [Float](repeating: 9, count: 4)
        let frames = stereo.withUnsafeBufferPointer { source in
            mono.withUnsafeMutableBufferPointer { SampleConversion.downmix(source, channels: 2, to: $0) }
        }
        #expect(frames == 4)
        #expect(mono == [0.5, 0.5, 0, -0.25])

        let three: [Float] = [0.3, 0.6, 0.9]
        var one: [Float] = [0, 0]
        let threeFrames = three.withUnsafeBufferPointer { source in
            one.withUnsafeMutableBufferPointer { SampleConversion.downmix(source, channels: 3, to: $0) }
        }
        #expect(threeFrames == 1)
        #expect(abs(one[0] - 0.6) < 1e-6)
        #expect(one[1] == 0)
    }

    @Test("downmix of mono is a copy")
    func downmixMono() {
        let mono: [Float] = [0.1, -0.2, 0.3]
        var copy = [Float](repeating: 0, count: 3)
        _ = mono.withUnsafeBufferPointer { source in
            copy.withUnsafeMutableBufferPointer { SampleConversion.downmix(source, channels: 1, to: $0) }
        }
        #expect(copy == mono)
    }

    @Test("upmix copies each mono sample to every channel, as far as the destination holds")
    func upmix() {
        let mono: [Float] = [0.1, -0.2, 0.3]
        var stereo = [Float](repeating: 9, count: 5)
        let frames = mono.withUnsafeBufferPointer { source in
            stereo.withUnsafeMutableBufferPointer { SampleConversion.upmix(source, channels: 2, to: $0) }
        }
        #expect(frames == 2)
        #expect(stereo == [0.1, 0.1, -0.2, -0.2, 9])
    }
}
