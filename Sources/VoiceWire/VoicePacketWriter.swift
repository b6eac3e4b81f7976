/// Writes voice packets (layout: see `VoicePacketView`) into the caller's buffer, without allocating.
public enum VoicePacketWriter {
    /// The largest packet written or accepted: fits any Internet path's MTU with room for UDP/IP
    /// headers, so packets are never fragmented.
    public static let maximumPacketBytes = 1200
    public static let maximumRedundantFrames = 2
    /// Version/type, flags, channel, sender, sequence, timestamp.
    public static let fixedHeaderBytes = 14
    /// Timestamp offset and length of one redundant frame.
    public static let redundantDescriptorBytes = 4

    /// The size of a packet with these payload sizes (`redundantBytes` are 0 for absent frames).
    public static func packetBytes(primaryBytes: Int, redundantBytes: (Int, Int) = (0, 0)) -> Int {
        let count = (redundantBytes.0 > 0 ? 1 : 0) + (redundantBytes.1 > 0 ? 1 : 0)
        let redundancy = count == 0 ? 0 : 1 + count * redundantDescriptorBytes + redundantBytes.0 + redundantBytes.1
        return fixedHeaderBytes + redundancy + primaryBytes
    }

    /// Writes one packet into `buffer` and returns the bytes written.
    ///
    /// `redundant0` is the most recent earlier frame, `redundant1` the one before it; offsets are
    /// 48 kHz samples before `timestamp`. The `.redundancy` flag is set from them, whatever `flags`
    /// says. Other flag bits are written as given.
    public static func write(
        flags: VoicePacketFlags, channel: ChannelNumber, sender: MediaID, sequence: UInt16, timestamp: UInt32,
        primary: UnsafeRawBufferPointer,
        redundant0: (offset: UInt16, payload: UnsafeRawBufferPointer)? = nil,
        redundant1: (offset: UInt16, payload: UnsafeRawBufferPointer)? = nil,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(WireError) -> Int {
        guard !primary.isEmpty else { throw .emptyPrimary }
        if redundant1 != nil && redundant0 == nil { throw .redundantFramesOutOfOrder }
        if let redundant0 {
            try check(redundant0, index: 0, after: 0)
            if let redundant1 { try check(redundant1, index: 1, after: redundant0.offset) }
        }

        var flags = flags
        if redundant0 != nil { flags.insert(.redundancy) } else { flags.remove(.redundancy) }
        let total = packetBytes(
            primaryBytes: primary.count,
            redundantBytes: (redundant0?.payload.count ?? 0, redundant1?.payload.count ?? 0))
        guard total <= maximumPacketBytes else { throw .oversizePacket(bytes: total, maximum: maximumPacketBytes) }
        guard total <= buffer.count else { throw .bufferTooSmall(needed: total, available: buffer.count) }

        buffer[0] = wireFirstByte(.voice)
        buffer[1] = flags.rawValue
        buffer.storeBigEndian(channel, at: 2)
        buffer.storeBigEndian(sender, at: 4)
        buffer.storeBigEndian(sequence, at: 8)
        buffer.storeBigEndian(timestamp, at: 10)
        var cursor = fixedHeaderBytes
        if let redundant0 {
            let count = redundant1 == nil ? 1 : 2
            buffer[cursor] = UInt8(count)
            cursor += 1
            buffer.storeBigEndian(redundant0.offset, at: cursor)
            buffer.storeBigEndian(UInt16(redundant0.payload.count), at: cursor + 2)
            cursor += redundantDescriptorBytes
            if let redundant1 {
                buffer.storeBigEndian(redundant1.offset, at: cursor)
                buffer.storeBigEndian(UInt16(redundant1.payload.count), at: cursor + 2)
                cursor += redundantDescriptorBytes
            }
            buffer.copy(redundant0.payload, to: cursor)
            cursor += redundant0.payload.count
            if let redundant1 {
                buffer.copy(redundant1.payload, to: cursor)
                cursor += redundant1.payload.count
            }
        }
        buffer.copy(primary, to: cursor)
        cursor += primary.count
        assert(cursor == total)
        return total
    }

    @inline(__always)
    private static func check(
        _ frame: (offset: UInt16, payload: UnsafeRawBufferPointer), index: Int, after previousOffset: UInt16
    ) throws(WireError) {
        guard frame.offset > previousOffset else { throw .invalidRedundantOffset(index: index, offset: frame.offset) }
        guard !frame.payload.isEmpty else { throw .emptyRedundantFrame(index: index) }
    }
}
