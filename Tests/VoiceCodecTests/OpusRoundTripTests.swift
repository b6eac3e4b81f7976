import Testing
import VoiceCodec
import VoiceCore

@Suite("Opus round trip")
struct OpusRoundTripTests {
    /// Decoded speech matches the input once shifted by the encoder's lookahead: the delay found by
    /// cross-correlation is the lookahead, and the waveforms correlate strongly there.
    @Test func speechSurvivesEncodeAndDecode() throws {
        let speech = try Fixture.load("speech-male.wav").samples
        var encoder = try OpusEncoder()
        var decoder = try OpusDecoder()
        let decoded = try decodeAll(try encodeAll(speech, with: &encoder), with: &decoder)
        #expect(decoded.count == speech.count / 960 * 960)

        // The delay search looks at 3 s of speech; the correlation is measured over all of it.
        let best = Signal.bestLag(speech, decoded, lags: 0...960, range: 48_000..<192_000)
        let lookahead = encoder.lookahead
        #expect(abs(best.lag - lookahead) <= 5, "best lag \(best.lag), lookahead \(lookahead)")
        let correlation = Signal.correlation(speech, decoded, lag: lookahead, range: 48_000..<(decoded.count - 4_800))
        // Measured 0.87 at 32 kbit/s: the codec keeps speech in phase, though not sample-exact.
        #expect(correlation > 0.8, "correlation \(correlation)")
    }

    @Test(arguments: FrameDuration.allCases)
    func everyFrameDurationRoundTrips(_ duration: FrameDuration) throws {
        let speech = Array(try Fixture.load("speech-female.wav").samples.prefix(4 * 48_000))
        var encoder = try OpusEncoder(.init(frameDuration: duration))
        var decoder = try OpusDecoder()
        let packets = try encodeAll(speech, with: &encoder)
        #expect(packets.count == speech.count / duration.engineFrames)
        for packet in packets.prefix(5) {
            try packet.withUnsafeBufferPointer { (bytes) throws(CodecError) in
                #expect(try OpusDecoder.sampleCount(of: bytes) == duration.engineFrames)
            }
        }
        let decoded = try decodeAll(packets, with: &decoder)
        #expect(decoded.count == packets.count * duration.engineFrames)
        let correlation = Signal.correlation(
            speech, decoded, lag: encoder.lookahead, range: 24_000..<(decoded.count - 4_800))
        // Measured 0.80 (10 ms) to 0.94 (5 ms).
        #expect(correlation > 0.7, "\(duration): correlation \(correlation)")
    }

    /// The int16 and float entry points feed libopus the same numbers when the float samples
    /// came from int16 (as the fixtures did), so they produce identical packets, and decoding to
    /// int16 is decoding to float rounded.
    @Test func int16AndFloatPathsAgree() throws {
        let speech = Array(try Fixture.load("speech-male.wav").samples.prefix(2 * 48_000))
        // Byte-exact at complexity 5: at 10, libopus's signal analysis sees the float samples'
        // extra precision and codes a few bits differently.
        var floatEncoder = try OpusEncoder(OpusEncoder.Configuration(complexity: 5))
        var int16Encoder = try OpusEncoder(OpusEncoder.Configuration(complexity: 5))
        var floatDecoder = try OpusDecoder()
        var int16Decoder = try OpusDecoder()
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketBytes)
        var floatPCM = [Float](repeating: 0, count: 960)
        var int16PCM = [Int16](repeating: 0, count: 960)
        var largestDifference: Float = 0
        for start in stride(from: 0, to: speech.count - 960, by: 960) {
            let frame = Array(speech[start..<start + 960])
            let floatPacket = try floatEncoder.encode(frame)
            let int16Frame = frame.map { SampleConversion.int16(fromFloat: $0) }
            let length = try int16Frame.withUnsafeBufferPointer { (input) throws(CodecError) -> Int in
                try packet.withUnsafeMutableBufferPointer { (output) throws(CodecError) -> Int in
                    try int16Encoder.encode(input, into: output)
                }
            }
            #expect(Array(packet[0..<length]) == floatPacket)

            try floatPacket.withUnsafeBufferPointer { (bytes) throws(CodecError) in
                let floatFrames = try floatPCM.withUnsafeMutableBufferPointer { (pcm) throws(CodecError) -> Int in
                    try floatDecoder.decode(bytes, into: pcm)
                }
                let int16Frames = try int16PCM.withUnsafeMutableBufferPointer { (pcm) throws(CodecError) -> Int in
                    try int16Decoder.decode(bytes, into: pcm)
                }
                #expect(floatFrames == 960 && int16Frames == 960)
            }
            for index in 0..<960 {
                let asFloat = Float(int16PCM[index]) / SampleConversion.int16Scale
                let expected = min(max(floatPCM[index], -1), 32_767 / 32_768)
                largestDifference = max(largestDifference, abs(asFloat - expected))
            }
        }
        #expect(largestDifference <= 1.01 / 32_768, "largest difference \(largestDifference * 32_768) LSB")
    }

    @Test func stereoRoundTrips() throws {
        let mono = Array(try Fixture.load("speech-female.wav").samples.prefix(2 * 48_000))
        let stereo = mono.flatMap { [$0, -$0] }
        var encoder = try OpusEncoder(.init(channels: 2, bitrate: 64_000))
        var decoder = try OpusDecoder(channels: 2)
        let decoded = try decodeAll(try encodeAll(stereo, with: &encoder), with: &decoder)
        let left = stride(from: 0, to: decoded.count, by: 2).map { decoded[$0] }
        let right = stride(from: 1, to: decoded.count, by: 2).map { decoded[$0] }
        let range = 24_000..<(left.count - 4_800)
        #expect(Signal.correlation(mono, left, lag: encoder.lookahead, range: range) > 0.8)
        #expect(Signal.correlation(mono.map { -$0 }, right, lag: encoder.lookahead, range: range) > 0.8)
    }

    @Test func runtimeSettingsAreAppliedAndReported() throws {
        var encoder = try OpusEncoder()
        try encoder.setBitrate(16_000)
        try encoder.setComplexity(9)
        try encoder.setPacketLossPercent(20)
        try encoder.setInbandFEC(false)
        try encoder.setDTX(true)
        try encoder.setBitrateMode(.constant)
        try encoder.setMaxBandwidth(.wideband)
        try encoder.setSignal(.music)
        let expected = OpusEncoder.Configuration(
            bitrate: 16_000, complexity: 9, bitrateMode: .constant, dtx: true, inbandFEC: false,
            packetLossPercent: 20, signal: .music, maxBandwidth: .wideband)
        let configuration = encoder.configuration
        #expect(configuration == expected)

        // The bandwidth cap shows in what is sent.
        let speech = Array(try Fixture.load("speech-male.wav").samples.prefix(48_000))
        let packets = try encodeAll(speech, with: &encoder)
        for packet in packets {
            try packet.withUnsafeBufferPointer { (bytes) throws(CodecError) in
                #expect(try OpusDecoder.bandwidth(of: bytes).cutoffHz <= OpusBandwidth.wideband.cutoffHz)
            }
        }
    }

    /// With DTX on, a long silence ends up in DTX with tiny packets; lookahead and reset work.
    @Test func dtxDuringSilence() throws {
        var encoder = try OpusEncoder(.init(dtx: true))
        let lookahead = encoder.lookahead
        #expect(lookahead > 0 && lookahead < 960)
        let silence = [Float](repeating: 0, count: 960)
        var sizes: [Int] = []
        for _ in 0..<50 { sizes.append(try encoder.encode(silence).count) }
        let inDTX = encoder.isInDTX
        #expect(inDTX)
        #expect(sizes.suffix(10).allSatisfy { $0 <= 3 }, "\(sizes)")
        encoder.reset()
        var withoutDTX = try OpusEncoder(.init(dtx: false))
        _ = try withoutDTX.encode(silence)
        let stillSending = !withoutDTX.isInDTX
        #expect(stillSending)
    }

    @Test func restrictedLowDelayHasShorterLookahead() throws {
        let voip = try OpusEncoder(.init(application: .voip))
        let lowDelay = try OpusEncoder(.init(application: .restrictedLowDelay))
        let (lowDelayLookahead, voipLookahead) = (lowDelay.lookahead, voip.lookahead)
        #expect(lowDelayLookahead < voipLookahead)
        #expect(lowDelayLookahead == 120)  // 2.5 ms at 48 kHz
    }
}
