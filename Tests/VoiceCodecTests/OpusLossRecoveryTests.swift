import Testing
import VoiceCodec
import VoiceCore

@Suite("Opus loss recovery")
struct OpusLossRecoveryTests {
    static let frame = 960

    /// Indices of 20 ms frames that hold speech (not the pauses), so losses hit something to recover.
    static func speechFrames(_ speech: [Float], count: Int) -> [Int] {
        (0..<count).filter { index in
            Signal.rms(speech[index * frame..<(index + 1) * frame]) > 0.03
        }
    }

    /// Decodes `packets` losing those in `lost`, recovering each either from the next packet's
    /// in-band FEC or by concealment. Returns the decoded signal.
    static func decode(_ packets: [[UInt8]], losing lost: Set<Int>, useFEC: Bool) throws -> [Float] {
        var decoder = try OpusDecoder()
        var pcm = [Float](repeating: 0, count: frame)
        var output: [Float] = []
        for index in packets.indices {
            let frames: Int
            if lost.contains(index) {
                if useFEC {
                    frames = try packets[index + 1].withUnsafeBufferPointer { (next) throws(CodecError) -> Int in
                        try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                            try decoder.decodeFEC(from: next, frames: frame, into: out)
                        }
                    }
                } else {
                    frames = try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                        try decoder.conceal(frames: frame, into: out)
                    }
                }
            } else {
                frames = try packets[index].withUnsafeBufferPointer { (bytes) throws(CodecError) -> Int in
                    try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                        try decoder.decode(bytes, into: out)
                    }
                }
            }
            #expect(frames == frame)
            let lastDuration = decoder.lastPacketDuration
            #expect(lastDuration == frame)
            output.append(contentsOf: pcm)
        }
        return output
    }

    /// Across many single losses in speech, recovering from in-band FEC lands much closer to the
    /// original than concealment does.
    @Test func inbandFECBeatsConcealment() throws {
        let speech = try Fixture.load("speech-male.wav").samples + (try Fixture.load("speech-female.wav").samples)
        var encoder = try OpusEncoder(.init(bitrate: 32_000, inbandFEC: true, packetLossPercent: 10))
        let packets = try encodeAll(speech, with: &encoder)
        let delay = encoder.lookahead

        let withFEC = try packets.map { packet in
            try packet.withUnsafeBufferPointer { (bytes) throws(CodecError) -> Bool in
                try OpusDecoder.hasInbandFEC(bytes)
            }
        }
        // Every 6th speech frame, so losses are isolated and spread over both talkers.
        let candidates = Self.speechFrames(speech, count: packets.count - 1)
        let lost = Set(stride(from: 0, to: candidates.count, by: 6).map { candidates[$0] })
        #expect(lost.count > 80, "only \(lost.count) losses")
        let fecShare = Double(lost.filter { withFEC[$0 + 1] }.count) / Double(lost.count)
        #expect(fecShare > 0.9, "only \(fecShare) of the packets after a loss carry FEC")

        let recovered = try Self.decode(packets, losing: lost, useFEC: true)
        let concealed = try Self.decode(packets, losing: lost, useFEC: false)
        var clean = try OpusDecoder()
        let lossless = try decodeAll(packets, with: &clean)
        let original = [Float](repeating: 0, count: delay) + speech

        // Against the original, the codec's own coding noise is in both errors; against the
        // lossless decode, only what the loss changed is.
        let versusOriginal = Self.errorRatioDB(recovered, concealed, reference: original, frames: lost)
        let versusLossless = Self.errorRatioDB(recovered, concealed, reference: lossless, frames: lost)
        // Measured 2.9 dB and 8.0 dB.
        #expect(versusOriginal > 2, "FEC improves on concealment by only \(versusOriginal) dB")
        #expect(versusLossless > 6, "FEC improves on concealment by only \(versusLossless) dB")
    }

    /// How much smaller, in dB, the squared error of `recovered` is than that of `concealed`,
    /// summed over the given 20 ms frames.
    static func errorRatioDB(_ recovered: [Float], _ concealed: [Float], reference: [Float], frames: Set<Int>) -> Double
    {
        var recoveredError = 0.0
        var concealedError = 0.0
        for index in frames {
            for position in index * frame..<(index + 1) * frame {
                let target = Double(reference[position])
                recoveredError += (Double(recovered[position]) - target) * (Double(recovered[position]) - target)
                concealedError += (Double(concealed[position]) - target) * (Double(concealed[position]) - target)
            }
        }
        return Signal.decibels(concealedError / recoveredError)
    }

    /// Without FEC in the stream, there is nothing to recover: the packet says so, and
    /// `decodeFEC` falls back to concealment, which is as far from the original as `conceal`.
    @Test func decodeFECWithoutFECFallsBackToConcealment() throws {
        let speech = Array(try Fixture.load("speech-female.wav").samples.prefix(3 * 48_000))
        var encoder = try OpusEncoder(.init(inbandFEC: false, packetLossPercent: 0))
        let packets = try encodeAll(speech, with: &encoder)
        for packet in packets {
            try packet.withUnsafeBufferPointer { (bytes) throws(CodecError) in
                #expect(try OpusDecoder.hasInbandFEC(bytes) == false)
            }
        }
        let lost = Set(Self.speechFrames(speech, count: packets.count - 1).prefix(10))
        #expect(!lost.isEmpty)
        let fallback = try Self.decode(packets, losing: lost, useFEC: true)
        let concealed = try Self.decode(packets, losing: lost, useFEC: false)
        var clean = try OpusDecoder()
        let lossless = try decodeAll(packets, with: &clean)
        let difference = Self.errorRatioDB(fallback, concealed, reference: lossless, frames: lost)
        #expect(abs(difference) < 0.5, "fallback and concealment differ by \(difference) dB")
    }

    /// CELT-only packets (restricted low delay) never carry FEC.
    @Test func celtPacketsHaveNoFEC() throws {
        var encoder = try OpusEncoder(.init(application: .restrictedLowDelay, inbandFEC: true, packetLossPercent: 30))
        let speech = Array(try Fixture.load("speech-male.wav").samples.prefix(48_000))
        for packet in try encodeAll(speech, with: &encoder) {
            let info = try packet.withUnsafeBufferPointer { (bytes) throws(CodecError) -> OpusPacketInfo in
                try OpusPacketInfo(parsing: bytes)
            }
            #expect(info.mode == .celt && !info.hasInbandFEC && info.frameCount == 1 && info.channels == 1)
        }
    }

    /// A concealed frame continues the speech before it: it is not silence, and it joins the
    /// last decoded sample without a jump bigger than the speech itself makes.
    @Test func concealmentIsContinuous() throws {
        let speech = try Fixture.load("speech-male.wav").samples
        var encoder = try OpusEncoder()
        let packets = try encodeAll(speech, with: &encoder)
        let candidates = Self.speechFrames(speech, count: packets.count - 1).filter { $0 > 5 }
        let losses = stride(from: 0, to: candidates.count, by: 10).map { candidates[$0] }
        #expect(losses.count > 20)
        let output = try Self.decode(packets, losing: Set(losses), useFEC: false)
        var silentConcealments = 0
        var jumps = 0
        for index in losses {
            let before = output[(index - 1) * Self.frame..<index * Self.frame]
            let concealed = output[index * Self.frame..<(index + 1) * Self.frame]
            if Signal.rms(concealed) < 0.1 * Signal.rms(before) { silentConcealments += 1 }
            let largestStepBefore = zip(before.dropFirst(), before).map { abs($0 - $1) }.max() ?? 0
            let boundaryStep = abs(concealed[concealed.startIndex] - before[before.endIndex - 1])
            if boundaryStep > largestStepBefore { jumps += 1 }
        }
        #expect(silentConcealments == 0, "\(silentConcealments) of \(losses.count) concealed frames were silent")
        #expect(jumps == 0, "\(jumps) of \(losses.count) boundaries jumped")
    }

    /// The 16-bit variants of FEC recovery and concealment produce the float variants' audio,
    /// rounded to 16 bits. (libopus soft-clips the 16-bit output where the float output would
    /// exceed full scale, so the speech is at half level to keep that out of the comparison.)
    @Test func int16RecoveryMatchesFloat() throws {
        let speech = try Fixture.load("speech-male.wav").samples.prefix(3 * 48_000).map { $0 * 0.5 }
        var encoder = try OpusEncoder()
        let packets = try encodeAll(speech, with: &encoder)
        var floatDecoder = try OpusDecoder()
        var int16Decoder = try OpusDecoder()
        var floatPCM = [Float](repeating: 0, count: Self.frame)
        var int16PCM = [Int16](repeating: 0, count: Self.frame)
        var largestDifference: Float = 0
        for index in 0..<(packets.count - 1) {
            try packets[index + 1].withUnsafeBufferPointer { (next) throws(CodecError) in
                let mode = index % 3
                let floatFrames = try floatPCM.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                    try packets[index].withUnsafeBufferPointer { (current) throws(CodecError) -> Int in
                        switch mode {
                        case 0: try floatDecoder.decode(current, into: out)
                        case 1: try floatDecoder.decodeFEC(from: next, frames: Self.frame, into: out)
                        default: try floatDecoder.conceal(frames: Self.frame, into: out)
                        }
                    }
                }
                let int16Frames = try int16PCM.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                    try packets[index].withUnsafeBufferPointer { (current) throws(CodecError) -> Int in
                        switch mode {
                        case 0: try int16Decoder.decode(current, into: out)
                        case 1: try int16Decoder.decodeFEC(from: next, frames: Self.frame, into: out)
                        default: try int16Decoder.conceal(frames: Self.frame, into: out)
                        }
                    }
                }
                #expect(floatFrames == Self.frame && int16Frames == Self.frame)
            }
            for sample in 0..<Self.frame {
                let expected = min(max(floatPCM[sample], -1), 32_767 / 32_768)
                let difference = abs(Float(int16PCM[sample]) / SampleConversion.int16Scale - expected)
                largestDifference = max(largestDifference, difference)
            }
        }
        #expect(largestDifference <= 1.01 / 32_768, "largest difference \(largestDifference * 32_768) LSB")
    }
}
