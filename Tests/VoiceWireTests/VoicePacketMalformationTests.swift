import Testing
import VoiceWire

/// One test per way a datagram can be malformed, each asserting the exact error.
@Suite struct VoicePacketMalformationTests {
    let redundancy = VoicePacketFlags.redundancy.rawValue

    @Test func emptyDatagram() {
        #expect(voiceParseError([]) == .truncatedHeader(needed: 1, available: 0))
        #expect(throws: WireError.truncatedHeader(needed: 1, available: 0)) {
            try [UInt8]().withUnsafeBytes { raw in try wireMessageType(of: raw) }
        }
    }

    @Test func truncatedHeader() {
        #expect(voiceParseError(Array(header(flags: 0)[0..<10])) == .truncatedHeader(needed: 14, available: 10))
    }

    @Test func unsupportedVersion() {
        var bytes = header(flags: 0) + [1]
        bytes[0] = 0x21
        #expect(voiceParseError(bytes) == .unsupportedVersion(2))
        bytes[0] = 0x01
        #expect(voiceParseError(bytes) == .unsupportedVersion(0))
    }

    @Test func unknownMessageType() {
        var bytes = header(flags: 0) + [1]
        bytes[0] = 0x1F
        #expect(voiceParseError(bytes) == .unknownMessageType(15))
    }

    @Test func reportParsedAsVoice() {
        let report = [UInt8](repeating: 0, count: ReceiverReport.encodedBytes)
        var bytes = report
        bytes[0] = 0x12
        #expect(voiceParseError(bytes) == .wrongMessageType(expected: .voice, found: .receiverReport))
        #expect(reportParseError(header(flags: 0) + [1]) == .wrongMessageType(expected: .receiverReport, found: .voice))
    }

    @Test func redundancyCountAboveTwo() {
        let bytes = header(flags: redundancy) + [3] + [UInt8](repeating: 1, count: 40)
        #expect(voiceParseError(bytes) == .tooManyRedundantFrames(count: 3, maximum: 2))
    }

    @Test func redundancyFlagWithZeroCount() {
        #expect(voiceParseError(header(flags: redundancy) + [0, 1, 2]) == .redundancyFlagWithoutFrames)
    }

    @Test func redundancyCountByteMissing() {
        #expect(voiceParseError(header(flags: redundancy)) == .truncatedHeader(needed: 15, available: 14))
    }

    @Test func redundantDescriptorsTruncated() {
        // Two descriptors need 8 bytes after the count; only 5 are there.
        let bytes = header(flags: redundancy) + [2, 0x03, 0xC0, 0, 1, 0x07]
        #expect(voiceParseError(bytes) == .truncatedHeader(needed: 23, available: 20))
    }

    @Test func redundantFrameOverrunsPacket() {
        // Frame 0 claims 50 bytes; 10 follow the descriptor.
        let bytes = header(flags: redundancy) + [1, 0x03, 0xC0, 0, 50] + [UInt8](repeating: 7, count: 10)
        #expect(voiceParseError(bytes) == .redundantFrameOverrunsPacket(index: 0, length: 50, available: 10))
    }

    @Test func secondRedundantFrameOverrunsPacket() {
        let bytes =
            header(flags: redundancy) + [2, 0x03, 0xC0, 0, 4, 0x07, 0x80, 0, 9] + [UInt8](repeating: 7, count: 10)
        #expect(voiceParseError(bytes) == .redundantFrameOverrunsPacket(index: 1, length: 9, available: 6))
    }

    @Test func emptyRedundantFrame() {
        let bytes = header(flags: redundancy) + [1, 0x03, 0xC0, 0, 0, 1, 2, 3]
        #expect(voiceParseError(bytes) == .emptyRedundantFrame(index: 0))
    }

    @Test func zeroRedundantOffset() {
        let bytes = header(flags: redundancy) + [1, 0, 0, 0, 1, 1, 2, 3]
        #expect(voiceParseError(bytes) == .invalidRedundantOffset(index: 0, offset: 0))
    }

    @Test func redundantOffsetsNotIncreasing() {
        let bytes = header(flags: redundancy) + [2, 0x03, 0xC0, 0, 1, 0x03, 0xC0, 0, 1, 1, 2, 3]
        #expect(voiceParseError(bytes) == .invalidRedundantOffset(index: 1, offset: 960))
    }

    @Test func emptyPrimary() {
        #expect(voiceParseError(header(flags: 0)) == .emptyPrimary)
    }

    @Test func redundantFramesLeaveNoPrimary() {
        let bytes = header(flags: redundancy) + [1, 0x03, 0xC0, 0, 3, 1, 2, 3]
        #expect(voiceParseError(bytes) == .emptyPrimary)
    }

    @Test func oversizePacket() {
        let bytes = header(flags: 0) + [UInt8](repeating: 1, count: VoicePacketWriter.maximumPacketBytes)
        #expect(voiceParseError(bytes) == .oversizePacket(bytes: bytes.count, maximum: 1200))
    }

    @Test(arguments: [0, 1, 25, 27, 100])
    func reportWrongSize(size: Int) {
        var bytes = [UInt8](repeating: 0, count: size)
        if size > 0 { bytes[0] = 0x12 }
        let expected: WireError =
            size == 0 ? .truncatedHeader(needed: 1, available: 0) : .reportWrongSize(bytes: size, expected: 26)
        #expect(reportParseError(bytes) == expected)
    }
}

/// The writer refuses to produce a packet the parser would reject.
@Suite struct VoicePacketWriterErrorTests {
    @Test func emptyPrimary() {
        #expect(throws: WireError.emptyPrimary) { try writePacket(primary: []) }
    }

    @Test func emptyRedundantFrame() {
        #expect(throws: WireError.emptyRedundantFrame(index: 1)) {
            try writePacket(primary: [1], redundant0: (960, [1]), redundant1: (1920, []))
        }
    }

    @Test func secondFrameWithoutFirst() {
        #expect(throws: WireError.redundantFramesOutOfOrder) {
            try writePacket(primary: [1], redundant1: (1920, [1]))
        }
    }

    @Test func offsetsMustGrow() {
        #expect(throws: WireError.invalidRedundantOffset(index: 0, offset: 0)) {
            try writePacket(primary: [1], redundant0: (0, [1]))
        }
        #expect(throws: WireError.invalidRedundantOffset(index: 1, offset: 960)) {
            try writePacket(primary: [1], redundant0: (960, [1]), redundant1: (960, [2]))
        }
    }

    @Test func oversizePacket() {
        #expect(throws: WireError.oversizePacket(bytes: 1201, maximum: 1200)) {
            try writePacket(primary: [UInt8](repeating: 1, count: 1187))
        }
    }

    @Test func bufferTooSmall() {
        var small = [UInt8](repeating: 0, count: 20)
        let primary: [UInt8] = Array(repeating: 5, count: 10)
        #expect(throws: WireError.bufferTooSmall(needed: 24, available: 20)) {
            try small.withUnsafeMutableBytes { output in
                try primary.withUnsafeBytes { bytes in
                    try VoicePacketWriter.write(
                        flags: [], channel: 0, sender: 0, sequence: 0, timestamp: 0, primary: bytes, into: output)
                }
            }
        }
        var reportBuffer = [UInt8](repeating: 0, count: 25)
        let report = ReceiverReport(
            reporter: 1, source: 2, channel: 3, highestSequence: 4, fractionLost: 0, meanBurstLength: 0,
            cumulativeLost: 0, jitterSamples: 0, bufferDelayMilliseconds: 0)
        #expect(throws: WireError.bufferTooSmall(needed: 26, available: 25)) {
            try reportBuffer.withUnsafeMutableBytes { buffer in try report.write(into: buffer) }
        }
    }

    @Test func descriptionsSayWhatWasWrong() {
        #expect(WireError.truncatedHeader(needed: 14, available: 3).description.contains("3 bytes"))
        #expect(WireError.unsupportedVersion(4).description.contains("version 4"))
        #expect(WireError.tooManyRedundantFrames(count: 5, maximum: 2).description.contains("5 redundant"))
        #expect(WireError.emptyPrimary.description.contains("primary"))
        #expect(WireError.reportWrongSize(bytes: 3, expected: 26).description.contains("exactly 26"))
    }
}
