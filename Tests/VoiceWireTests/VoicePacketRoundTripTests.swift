import Testing
import VoiceWire

@Suite struct VoicePacketRoundTripTests {
    let primary: [UInt8] = Array(1...40)
    let older: [UInt8] = Array(100...119)
    let oldest: [UInt8] = Array(200...209)

    @Test func withoutRedundancy() throws {
        let bytes = try writePacket(flags: [.speaking], primary: primary)
        #expect(bytes.count == VoicePacketWriter.fixedHeaderBytes + primary.count)
        #expect(bytes.count == VoicePacketWriter.packetBytes(primaryBytes: primary.count))
        let view = try parsePacket(bytes)
        #expect(view.flags == [.speaking])
        #expect(view.channel == 3)
        #expect(view.sender == 0xDEAD_BEEF)
        #expect(view.sequence == 7)
        #expect(view.timestamp == 48_000)
        #expect(view.redundantCount == 0)
        #expect(Array(bytes[view.primary]) == primary)
        #expect(view.redundant(0) == .none)
    }

    @Test func withOneRedundantFrame() throws {
        let bytes = try writePacket(flags: [.speaking], primary: primary, redundant0: (960, older))
        #expect(bytes.count == VoicePacketWriter.packetBytes(primaryBytes: 40, redundantBytes: (20, 0)))
        let view = try parsePacket(bytes)
        #expect(view.flags == [.speaking, .redundancy])
        #expect(view.redundantCount == 1)
        #expect(view.redundant0.timestampOffset == 960)
        #expect(Array(bytes[view.redundant0.payload]) == older)
        #expect(view.redundantTimestamp(0) == 48_000 - 960)
        #expect(view.redundant(1) == .none)
        #expect(Array(bytes[view.primary]) == primary)
    }

    @Test func withTwoRedundantFrames() throws {
        let bytes = try writePacket(primary: primary, redundant0: (960, older), redundant1: (1920, oldest))
        let view = try parsePacket(bytes)
        #expect(view.redundantCount == 2)
        #expect(view.redundant(0) == view.redundant0)
        #expect(view.redundant(1) == view.redundant1)
        #expect(Array(bytes[view.redundant0.payload]) == older)
        #expect(Array(bytes[view.redundant1.payload]) == oldest)
        #expect(view.redundant1.timestampOffset == 1920)
        #expect(Array(bytes[view.primary]) == primary)
    }

    /// Bit 2 once marked a trailing authentication tag; it is reserved now and, like any unknown
    /// bit, ignored: the last 16 bytes stay part of the primary frame.
    @Test func reservedBitTwoIsIgnored() throws {
        let bytes = try writePacket(
            flags: VoicePacketFlags(rawValue: 1 << 2), primary: primary, redundant0: (480, older))
        #expect(bytes.count == VoicePacketWriter.packetBytes(primaryBytes: 40, redundantBytes: (20, 0)))
        let view = try parsePacket(bytes)
        #expect(view.flags.rawValue == 1 << 2 | VoicePacketFlags.redundancy.rawValue)
        #expect(Array(bytes[view.primary]) == primary)
        #expect(view.primary.upperBound == bytes.count)
        #expect(Array(bytes[view.redundant0.payload]) == older)
        // A hand-built header with only bit 2 and a 1-byte primary parses too.
        let minimal = try parsePacket(header(flags: 1 << 2) + [9])
        #expect(minimal.primary == 14..<15)
    }

    @Test func redundancyFlagFollowsTheFramesGiven() throws {
        let bytes = try writePacket(flags: [.redundancy, .talkSpurtStart], primary: primary)
        let view = try parsePacket(bytes)
        #expect(view.flags == [.talkSpurtStart])
        #expect(view.redundantCount == 0)
    }

    @Test func unknownFlagBitsAreCarriedThrough() throws {
        let bytes = try writePacket(flags: VoicePacketFlags(rawValue: 0x80 | 0x01), primary: primary)
        #expect(try parsePacket(bytes).flags.rawValue == 0x81)
    }

    @Test(
        arguments: [
            (UInt16.max, UInt32.max, ChannelNumber(rawValue: .max), MediaID(rawValue: .max)),
            (0, 0, 0, 0),
            (UInt16.max, 1919, 1, 1),
        ] as [(UInt16, UInt32, ChannelNumber, MediaID)])
    func extremeFieldValuesSurvive(sequence: UInt16, timestamp: UInt32, channel: ChannelNumber, sender: MediaID) throws
    {
        let bytes = try writePacket(
            channel: channel, sender: sender, sequence: sequence, timestamp: timestamp, primary: [0xFF],
            redundant0: (960, [1]), redundant1: (UInt16.max, [2]))
        let view = try parsePacket(bytes)
        #expect(view.sequence == sequence)
        #expect(view.timestamp == timestamp)
        #expect(view.channel == channel)
        #expect(view.sender == sender)
        #expect(view.redundant1.timestampOffset == .max)
        // Timestamps wrap: the redundant frame before timestamp 0 lies at the top of the range.
        #expect(view.redundantTimestamp(0) == timestamp &- 960)
    }

    @Test func largestPacketFitsExactly() throws {
        let size = VoicePacketWriter.maximumPacketBytes - VoicePacketWriter.fixedHeaderBytes
        let bytes = try writePacket(primary: [UInt8](repeating: 9, count: size))
        #expect(bytes.count == VoicePacketWriter.maximumPacketBytes)
        #expect(try parsePacket(bytes).primary.count == size)
    }

    @Test func messageTypeIsReadFromByteZero() throws {
        let voice = try writePacket(primary: primary)
        var report = [UInt8](repeating: 0, count: ReceiverReport.encodedBytes)
        _ = try report.withUnsafeMutableBytes { buffer in
            try ReceiverReport(
                reporter: 1, source: 2, channel: 0, highestSequence: 0, fractionLost: 0, meanBurstLength: 0,
                cumulativeLost: 0, jitterSamples: 0, bufferDelayMilliseconds: 0
            ).write(into: buffer)
        }
        #expect(try voice.withUnsafeBytes { try wireMessageType(of: $0) } == .voice)
        #expect(try report.withUnsafeBytes { try wireMessageType(of: $0) } == .receiverReport)
        #expect(voice[0] == 0x11)
        #expect(report[0] == 0x12)
    }
}
