/// A parsed voice packet: its header fields, and its payloads as byte ranges of the parsed buffer.
///
/// Parsing copies nothing and allocates nothing; the ranges index the same buffer that was parsed
/// (0 = its first byte), so they are only meaningful together with those bytes.
///
/// Layout, version 1 (all fields big-endian):
///
/// ```
///  byte    0        1        2        3        4        5        6        7
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///     0 |ver|type| flags  |     channel     |              sender               |
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///     8 |    sequence     |             timestamp             |
///       +--------+--------+--------+--------+--------+--------+
///    14 | count  |  only with the redundancy flag: 1 or 2
///       +--------+--------+--------+--------+
///       |     offset 0    |     length 0    |  one descriptor per redundant frame,
///       +--------+--------+--------+--------+  most recent first
///       |     offset 1    |     length 1    |
///       +--------+--------+--------+--------+
///       | redundant payload 0 … | redundant payload 1 … |
///       +-----------------------+-----------------------+
///       | primary payload (everything left, at least 1 byte) … |
///       +-------------------------------------------------------+
/// ```
///
/// `ver|type` is `wireVersion << 4 | WireMessageType.voice`. A packet without redundancy costs 14
/// bytes of header; each redundant frame adds 4 bytes of descriptor (plus 1 count byte for the first).
/// Offsets count 48 kHz samples back from `timestamp`; they must be positive and strictly grow from
/// frame 0 to frame 1, so the frames are distinct and in order.
///
/// A voice packet carries no authentication of its own: between engines it travels inside a
/// sealed envelope (`SealedEnvelopeHeader`, `EnvelopeSealer`).
public struct VoicePacketView: Sendable, Hashable {
    public var flags: VoicePacketFlags
    public var channel: ChannelNumber
    public var sender: MediaID
    public var sequence: UInt16
    public var timestamp: UInt32
    /// The primary Opus frame's byte range.
    public var primary: Range<Int>
    /// 0, 1 or 2.
    public var redundantCount: Int
    /// Valid when `redundantCount >= 1`: the most recent earlier frame.
    public var redundant0: RedundantFrame
    /// Valid when `redundantCount == 2`: the frame before `redundant0`.
    public var redundant1: RedundantFrame

    public init(
        flags: VoicePacketFlags, channel: ChannelNumber, sender: MediaID, sequence: UInt16, timestamp: UInt32,
        primary: Range<Int>, redundantCount: Int = 0, redundant0: RedundantFrame = .none,
        redundant1: RedundantFrame = .none
    ) {
        self.flags = flags
        self.channel = channel
        self.sender = sender
        self.sequence = sequence
        self.timestamp = timestamp
        self.primary = primary
        self.redundantCount = redundantCount
        self.redundant0 = redundant0
        self.redundant1 = redundant1
    }

    /// Redundant frame `index` (0 = most recent); `.none` outside `0..<redundantCount`.
    public func redundant(_ index: Int) -> RedundantFrame {
        guard index >= 0 && index < redundantCount else { return .none }
        return index == 0 ? redundant0 : redundant1
    }

    /// The timestamp of redundant frame `index` (wrapping like every timestamp).
    public func redundantTimestamp(_ index: Int) -> UInt32 {
        timestamp &- UInt32(redundant(index).timestampOffset)
    }

    /// Parses an untrusted datagram. Every length is checked before it is used.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireError) {
        try checkMessageType(bytes, expected: .voice)
        let size = bytes.count
        let fixed = VoicePacketWriter.fixedHeaderBytes
        guard size <= VoicePacketWriter.maximumPacketBytes else {
            throw .oversizePacket(bytes: size, maximum: VoicePacketWriter.maximumPacketBytes)
        }
        guard size >= fixed else { throw .truncatedHeader(needed: fixed, available: size) }

        // Unknown flag bits, the reserved bit 2 included, are kept but change nothing here.
        let flags = VoicePacketFlags(rawValue: bytes[1])

        var cursor = fixed
        var count = 0
        var frames = (RedundantFrame.none, RedundantFrame.none)
        if flags.contains(.redundancy) {
            guard cursor + 1 <= size else { throw .truncatedHeader(needed: cursor + 1, available: size) }
            count = Int(bytes[cursor])
            cursor += 1
            guard count != 0 else { throw .redundancyFlagWithoutFrames }
            guard count <= VoicePacketWriter.maximumRedundantFrames else {
                throw .tooManyRedundantFrames(count: count, maximum: VoicePacketWriter.maximumRedundantFrames)
            }
            let descriptors = cursor
            cursor += count * VoicePacketWriter.redundantDescriptorBytes
            guard cursor <= size else { throw .truncatedHeader(needed: cursor, available: size) }

            var previousOffset: UInt16 = 0
            for index in 0..<count {
                let descriptor = descriptors + index * VoicePacketWriter.redundantDescriptorBytes
                let offset = bytes.bigEndianUInt16(at: descriptor)
                let length = Int(bytes.bigEndianUInt16(at: descriptor + 2))
                guard offset > previousOffset else { throw .invalidRedundantOffset(index: index, offset: offset) }
                guard length > 0 else { throw .emptyRedundantFrame(index: index) }
                guard length <= size - cursor else {
                    throw .redundantFrameOverrunsPacket(index: index, length: length, available: size - cursor)
                }
                let frame = RedundantFrame(timestampOffset: offset, payload: cursor..<(cursor + length))
                if index == 0 { frames.0 = frame } else { frames.1 = frame }
                previousOffset = offset
                cursor += length
            }
        }
        guard cursor < size else { throw .emptyPrimary }

        self.init(
            flags: flags, channel: bytes.channelNumber(at: 2), sender: bytes.mediaID(at: 4),
            sequence: bytes.bigEndianUInt16(at: 8), timestamp: bytes.bigEndianUInt32(at: 10),
            primary: cursor..<size, redundantCount: count, redundant0: frames.0, redundant1: frames.1)
    }
}
