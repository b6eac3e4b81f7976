import Foundation
import Testing
import VoiceCore
import VoiceDevices

/// Builds RIFF files chunk by chunk, so that each test states exactly the bytes it feeds in.
private enum RIFFBuilder {
    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    static func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16((value >> 16) & 0xFFFF) }

    static func chunk(_ id: String, _ body: [UInt8], declaredSize: Int? = nil, pad: Bool = true) -> [UInt8] {
        var bytes = Array(id.utf8) + le32(declaredSize ?? body.count) + body
        if pad, body.count % 2 == 1 { bytes.append(0) }
        return bytes
    }

    static func fmt(tag: Int = 1, channels: Int = 1, rate: Int = 48_000, bits: Int = 16, blockAlign: Int? = nil)
        -> [UInt8]
    {
        let align = blockAlign ?? channels * bits / 8
        return chunk(
            "fmt ", le16(tag) + le16(channels) + le32(rate) + le32(rate * align) + le16(align) + le16(bits))
    }

    static func riff(_ chunks: [UInt8]...) -> [UInt8] {
        let body = Array("WAVE".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static func int16Data(_ values: [Int16]) -> [UInt8] {
        values.flatMap { le16(Int(UInt16(bitPattern: $0))) }
    }
}

@Suite("WAV")
struct WAVTests {
    private func decode(_ bytes: [UInt8]) throws(WAVError) -> WAVAudio {
        try WAVAudio(decoding: bytes)
    }

    @Test("int16 audio round-trips bit-exact", arguments: [1, 2])
    func int16RoundTrip(channels: Int) throws {
        let samples = (0..<2_000).map { Float(Int16(truncatingIfNeeded: $0 * 977 - 30_000)) / 32_768 }
        let audio = WAVAudio(format: AudioFormat(sampleRate: 16_000, channels: channels), samples: samples)
        let bytes = audio.encoded()
        #expect(bytes.count == 44 + 2 * samples.count)
        #expect(try decode(bytes) == audio)
    }

    @Test("float32 audio round-trips bit-exact, beyond full scale too")
    func float32RoundTrip() throws {
        let samples: [Float] = [0, -0, 1, -1, 1.5, .leastNonzeroMagnitude, 0.123_456_789, -0.987_654_3, 3e-8]
        let audio = WAVAudio(
            format: AudioFormat(sampleRate: 44_100, channels: 1), sampleFormat: .float32, samples: samples)
        let decoded = try decode(audio.encoded())
        #expect(decoded.sampleFormat == .float32)
        #expect(decoded.samples.map(\.bitPattern) == samples.map(\.bitPattern))
    }

    @Test("stereo frames keep their channel order")
    func stereo() throws {
        let bytes = RIFFBuilder.riff(
            RIFFBuilder.fmt(channels: 2),
            RIFFBuilder.chunk("data", RIFFBuilder.int16Data([1_000, -1_000, 2_000, -2_000])))
        let audio = try decode(bytes)
        #expect(audio.format == AudioFormat(sampleRate: 48_000, channels: 2))
        #expect(audio.frameCount == 2)
        #expect(audio.samples == [1_000, -1_000, 2_000, -2_000].map { Float($0) / 32_768 })
    }

    @Test("file round trip through disk")
    func fileRoundTrip() throws {
        let path = NSTemporaryDirectory() + "wav-test-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let audio = WAVAudio(format: .engineMono, sampleFormat: .float32, samples: [0.25, -0.5, 0.75])
        try audio.write(toFile: path)
        #expect(try WAVAudio(contentsOfFile: path) == audio)
    }

    @Test("WAVE_FORMAT_EXTENSIBLE takes its encoding from the subformat", arguments: [(1, 16), (3, 32)])
    func extensible(subformat: Int, bits: Int) throws {
        let align = 2 * bits / 8
        var fmt = RIFFBuilder.le16(0xFFFE) + RIFFBuilder.le16(2) + RIFFBuilder.le32(48_000)
        fmt += RIFFBuilder.le32(48_000 * align) + RIFFBuilder.le16(align) + RIFFBuilder.le16(bits)
        fmt += RIFFBuilder.le16(22) + RIFFBuilder.le16(bits) + RIFFBuilder.le32(3)
        fmt +=
            RIFFBuilder.le16(subformat) + [
                0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
            ]
        let data: [UInt8] =
            subformat == 1
            ? RIFFBuilder.int16Data([16_384, -16_384])
            : RIFFBuilder.le32(Int(Float(0.5).bitPattern)) + RIFFBuilder.le32(Int(Float(-0.5).bitPattern))
        let audio = try decode(RIFFBuilder.riff(RIFFBuilder.chunk("fmt ", fmt), RIFFBuilder.chunk("data", data)))
        #expect(audio.sampleFormat == (subformat == 1 ? .int16 : .float32))
        #expect(audio.format.channels == 2)
        #expect(audio.samples == [0.5, -0.5])
    }

    @Test("an odd-sized chunk before the data is skipped with its padding byte")
    func oddChunkWithPadding() throws {
        let bytes = RIFFBuilder.riff(
            RIFFBuilder.fmt(), RIFFBuilder.chunk("LIST", [0x41, 0x42, 0x43]),
            RIFFBuilder.chunk("data", RIFFBuilder.int16Data([300, -300])))
        let audio = try decode(bytes)
        #expect(audio.samples == [300 / 32_768, -300 / 32_768])
    }

    @Test("an unpatched streaming header means the data runs to the end of the file", arguments: [0, 0xFFFF_FFFF])
    func unpatchedHeader(declaredSize: Int) throws {
        // Five bytes after the header: two whole frames and the start of a third, cut off.
        let data = RIFFBuilder.int16Data([1, 2]) + [0x07]
        let bytes = RIFFBuilder.riff(
            RIFFBuilder.fmt(), RIFFBuilder.chunk("data", data, declaredSize: declaredSize, pad: false))
        let audio = try decode(bytes)
        #expect(audio.samples == [1 / 32_768, 2 / 32_768])
    }

    @Test(
        "malformed files are rejected with what is wrong",
        arguments: [
            ("empty", [], WAVError.tooShort(byteCount: 0)),
            ("not RIFF", Array("ID3\u{3}then some MP3 frames".utf8), .notRIFFWave),
            ("RIFF but not WAVE", Array("RIFF\u{4}\0\0\0AVI ".utf8), .notRIFFWave),
            (
                "truncated data chunk",
                RIFFBuilder.riff(RIFFBuilder.fmt(), Array("data".utf8) + RIFFBuilder.le32(100) + [0, 0, 0, 0]),
                .chunkOverrunsFile(chunk: "data", declaredBytes: 100, availableBytes: 4)
            ),
            (
                "truncated format chunk",
                RIFFBuilder.riff(Array("fmt ".utf8) + RIFFBuilder.le32(16) + [1, 0]),
                .chunkOverrunsFile(chunk: "fmt ", declaredBytes: 16, availableBytes: 2)
            ),
            (
                "partial frame",
                RIFFBuilder.riff(RIFFBuilder.fmt(channels: 2), RIFFBuilder.chunk("data", [1, 2, 3, 4, 5, 6])),
                .partialFrame(dataBytes: 6, blockAlign: 4)
            ),
            (
                "24-bit",
                RIFFBuilder.riff(RIFFBuilder.fmt(bits: 24), RIFFBuilder.chunk("data", [0, 0, 0])),
                .unsupportedEncoding(formatTag: 1, bitsPerSample: 24)
            ),
            (
                "8-bit",
                RIFFBuilder.riff(RIFFBuilder.fmt(bits: 8), RIFFBuilder.chunk("data", [0x80, 0x80])),
                .unsupportedEncoding(formatTag: 1, bitsPerSample: 8)
            ),
            (
                "ADPCM",
                RIFFBuilder.riff(RIFFBuilder.fmt(tag: 2, bits: 4, blockAlign: 256), RIFFBuilder.chunk("data", [0, 0])),
                .unsupportedEncoding(formatTag: 2, bitsPerSample: 4)
            ),
            (
                "3 channels",
                RIFFBuilder.riff(RIFFBuilder.fmt(channels: 3), RIFFBuilder.chunk("data", [0, 0, 0, 0, 0, 0])),
                .invalidChannelCount(3)
            ),
            (
                "0 channels",
                RIFFBuilder.riff(RIFFBuilder.fmt(channels: 0, blockAlign: 2), RIFFBuilder.chunk("data", [])),
                .invalidChannelCount(0)
            ),
            (
                "zero rate",
                RIFFBuilder.riff(RIFFBuilder.fmt(rate: 0), RIFFBuilder.chunk("data", [0, 0])),
                .invalidSampleRate(0)
            ),
            (
                "bad block align",
                RIFFBuilder.riff(RIFFBuilder.fmt(channels: 2, blockAlign: 2), RIFFBuilder.chunk("data", [0, 0, 0, 0])),
                .inconsistentBlockAlign(declared: 2, expected: 4)
            ),
            (
                "format chunk too short",
                RIFFBuilder.riff(RIFFBuilder.chunk("fmt ", [1, 0, 1, 0]), RIFFBuilder.chunk("data", [0, 0])),
                .formatChunkTooShort(byteCount: 4)
            ),
            (
                "missing fmt before data",
                RIFFBuilder.riff(RIFFBuilder.chunk("data", [0, 0]), RIFFBuilder.fmt()),
                .missingFormatChunk
            ),
            ("no chunks at all", RIFFBuilder.riff(), .missingFormatChunk),
            (
                "missing data", RIFFBuilder.riff(RIFFBuilder.fmt(), RIFFBuilder.chunk("LIST", [1, 2])),
                .missingDataChunk
            ),
        ] as [(String, [UInt8], WAVError)])
    func malformed(name: String, bytes: [UInt8], expected: WAVError) {
        #expect(throws: expected, "\(name)") { try WAVAudio(decoding: bytes) }
        #expect(!expected.description.isEmpty)
    }

    @Test("an unreadable path is reported with the path")
    func unreadablePath() {
        let path = "/nonexistent-directory/missing.wav"
        let error = #expect(throws: WAVError.self) { try WAVAudio(contentsOfFile: path) }
        guard case .unreadable(let reported, let reason) = error else {
            Issue.record("expected .unreadable, got \(String(describing: error))")
            return
        }
        #expect(reported == path)
        #expect(!reason.isEmpty)
        #expect(error?.description.contains(path) == true)
    }

    @Test("an unwritable path is reported with the path")
    func unwritablePath() {
        let path = "/nonexistent-directory/out.wav"
        let audio = WAVAudio(format: .engineMono, samples: [0])
        let error = #expect(throws: WAVError.self) { try audio.write(toFile: path) }
        guard case .unwritable(let reported, _) = error else {
            Issue.record("expected .unwritable, got \(String(describing: error))")
            return
        }
        #expect(reported == path)
    }

    @Test("the header alone gives the data's place and size")
    func headerParsing() throws {
        let bytes = RIFFBuilder.riff(
            RIFFBuilder.fmt(channels: 2), RIFFBuilder.chunk("LIST", [1]),
            RIFFBuilder.chunk("data", [UInt8](repeating: 0, count: 40)))
        let header = try bytes.withUnsafeBytes { raw throws(WAVError) in try WAVHeader(parsing: raw) }
        #expect(header.dataOffset == 12 + 24 + 10 + 8)
        #expect(header.dataByteCount == 40)
        #expect(header.frameCount == 10)
        #expect(
            WAVHeader.encode(format: .engineMono, sampleFormat: .int16, frameCount: 0).count
                == WAVHeader.canonicalByteCount)
    }
}
