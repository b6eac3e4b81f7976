import Testing
import VoiceCodec
import VoiceCore
import VoiceSimulation

@Suite("Opus validation")
struct OpusValidationTests {
    /// The look-ahead the delay budget counts is what libopus reports, at every frame length.
    @Test(arguments: OpusEncoder.Configuration.Application.allCases)
    func theLookaheadOfAnApplicationIsWhatTheEncoderReports(_ application: OpusEncoder.Configuration.Application)
        throws
    {
        for frameDuration in [FrameDuration.ms2_5, .ms5, .ms10, .ms20, .ms60] {
            let encoder = try OpusEncoder(
                OpusEncoder.Configuration(application: application, frameDuration: frameDuration))
            #expect(Double(encoder.lookahead) == application.lookaheadMilliseconds * 48, "\(frameDuration)")
        }
    }

    @Test func everyInvalidSettingIsNamed() {
        let cases: [(String, String, OpusEncoder.Configuration)] = [
            ("sampleRate", "44100", .init(sampleRate: 44_100)),
            ("channels", "3", .init(channels: 3)),
            ("channels", "0", .init(channels: 0)),
            ("bitrate", "5000", .init(bitrate: 5_000)),
            ("bitrate", "600000", .init(bitrate: 600_000)),
            ("complexity", "11", .init(complexity: 11)),
            ("complexity", "-1", .init(complexity: -1)),
            ("packetLossPercent", "101", .init(packetLossPercent: 101)),
            ("packetLossPercent", "-5", .init(packetLossPercent: -5)),
        ]
        for (setting, value, configuration) in cases {
            expectCodecError(.invalidArgument, mentioning: [setting, value, "allowed"]) {
                _ = try OpusEncoder(configuration)
            }
        }
    }

    @Test func invalidRuntimeSettingsAreRejectedAndLeaveTheEncoderAlone() throws {
        var encoder = try OpusEncoder()
        expectCodecError(.invalidArgument, mentioning: ["bitrate", "1000000"]) { try encoder.setBitrate(1_000_000) }
        expectCodecError(.invalidArgument, mentioning: ["complexity", "42"]) { try encoder.setComplexity(42) }
        expectCodecError(.invalidArgument, mentioning: ["packetLossPercent", "200"]) {
            try encoder.setPacketLossPercent(200)
        }
        let configuration = encoder.configuration
        #expect(configuration == OpusEncoder.Configuration())
    }

    @Test func invalidDecoderSettingsAreNamed() {
        expectCodecError(.invalidArgument, mentioning: ["sampleRate", "44100"]) {
            _ = try OpusDecoder(sampleRate: 44_100)
        }
        expectCodecError(.invalidArgument, mentioning: ["channels", "6"]) { _ = try OpusDecoder(channels: 6) }
    }

    @Test func wrongFrameSizeIsRejectedWithTheExpectedCount() throws {
        var encoder = try OpusEncoder()
        for count in [0, 959, 961, 480, 1_920] {
            expectCodecError(.invalidArgument, mentioning: ["\(count) samples", "960"]) {
                _ = try encoder.encode([Float](repeating: 0, count: count))
            }
        }
        var stereo = try OpusEncoder(.init(channels: 2, frameDuration: .ms10))
        expectCodecError(.invalidArgument, mentioning: ["960"]) {
            _ = try stereo.encode([Float](repeating: 0, count: 480))
        }
        var packet = [UInt8]()
        let frame = [Float](repeating: 0, count: 960)
        expectCodecError(.bufferTooSmall) {
            _ = try frame.withUnsafeBufferPointer { (input) throws(CodecError) -> Int in
                try packet.withUnsafeMutableBufferPointer { (output) throws(CodecError) -> Int in
                    try encoder.encode(input, into: output)
                }
            }
        }
    }

    /// A code-3 packet that declares no frames, a code-3 packet cut before its frame count, an
    /// empty packet and a single frame longer than Opus allows are all `.invalidPacket`, and the
    /// decoder decodes a good packet correctly right after them.
    @Test func garbagePacketsAreRejectedAndTheDecoderRecovers() throws {
        let speech = Array(try Fixture.load("speech-male.wav").samples.prefix(48_000))
        var encoder = try OpusEncoder()
        let good = try encodeAll(speech, with: &encoder)

        var reference = try OpusDecoder()
        let expected = try decodeAll(good, with: &reference)

        var decoder = try OpusDecoder()
        var pcm = [Float](repeating: 0, count: decoder.maximumFrameSamples)
        let garbage: [[UInt8]] = [
            [0x03, 0x00], [0x03], [], [0x78] + [UInt8](repeating: 0x55, count: 100_000),
            [0xFB, 0xFF, 0xFF, 0xFF],
        ]
        var output: [Float] = []
        for (index, packet) in good.enumerated() {
            if index == 10 {
                for bad in garbage {
                    expectCodecError(.invalidPacket) {
                        _ = try bad.withUnsafeBufferPointer { (bytes) throws(CodecError) -> Int in
                            try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                                try decoder.decode(bytes, into: out)
                            }
                        }
                    }
                    expectCodecError(.invalidPacket) {
                        _ = try bad.withUnsafeBufferPointer { (bytes) throws(CodecError) -> OpusPacketInfo in
                            try OpusPacketInfo(parsing: bytes)
                        }
                    }
                }
            }
            let frames = try packet.withUnsafeBufferPointer { (bytes) throws(CodecError) -> Int in
                try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                    try decoder.decode(bytes, into: out)
                }
            }
            output.append(contentsOf: pcm[0..<frames])
        }
        // Rejected packets never reach the decoder's state: the output is bit for bit the same.
        #expect(output == expected)
    }

    /// Random bytes of every length never trap: each is decoded or rejected with a packet error,
    /// and whatever the packet inspection accepts, the decoder accepts too.
    @Test func randomBytesNeverTrap() throws {
        var random = SeededRandom(seed: 0x5EED)
        var decoder = try OpusDecoder()
        var pcm = [Float](repeating: 0, count: decoder.maximumFrameSamples)
        var decodedCount = 0
        var rejectedCount = 0
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...1_600, using: &random)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let info = bytes.withUnsafeBufferPointer { try? OpusPacketInfo(parsing: $0) }
            do throws(CodecError) {
                let frames = try bytes.withUnsafeBufferPointer { (packet) throws(CodecError) -> Int in
                    try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                        try decoder.decode(packet, into: out)
                    }
                }
                decodedCount += 1
                #expect(frames == info?.sampleCount)
                #expect(pcm[0..<frames].allSatisfy { $0.isFinite })
            } catch {
                rejectedCount += 1
                #expect(error.code == .invalidPacket, "\(error)")
                #expect(info == nil)
            }
        }
        #expect(decodedCount > 0 && rejectedCount > 0)
    }

    @Test func decodeIntoTooSmallBufferIsReported() throws {
        var encoder = try OpusEncoder()
        let packet = try encoder.encode([Float](repeating: 0.1, count: 960))
        var decoder = try OpusDecoder()
        var pcm = [Float](repeating: 0, count: 480)
        expectCodecError(.bufferTooSmall) {
            _ = try packet.withUnsafeBufferPointer { (bytes) throws(CodecError) -> Int in
                try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                    try decoder.decode(bytes, into: out)
                }
            }
        }
        expectCodecError(.invalidArgument, mentioning: ["frames", "100"]) {
            _ = try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                try decoder.conceal(frames: 100, into: out)
            }
        }
        expectCodecError(.bufferTooSmall) {
            _ = try pcm.withUnsafeMutableBufferPointer { (out) throws(CodecError) -> Int in
                try decoder.conceal(frames: 960, into: out)
            }
        }
    }
}
