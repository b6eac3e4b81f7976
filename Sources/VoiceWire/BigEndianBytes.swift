// Big-endian field access on raw buffers. Callers check every length before calling, so these
// helpers only assert it (in debug builds) rather than checking again on the hot path.

extension UnsafeRawBufferPointer {
    @inline(__always)
    func bigEndianUInt16(at offset: Int) -> UInt16 {
        assert(offset >= 0 && offset + 2 <= count)
        return UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inline(__always)
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        assert(offset >= 0 && offset + 4 <= count)
        return UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }

    @inline(__always)
    func mediaID(at offset: Int) -> MediaID { MediaID(rawValue: bigEndianUInt32(at: offset)) }

    @inline(__always)
    func channelNumber(at offset: Int) -> ChannelNumber { ChannelNumber(rawValue: bigEndianUInt16(at: offset)) }

    @inline(__always)
    func bigEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(bigEndianUInt32(at: offset)) << 32 | UInt64(bigEndianUInt32(at: offset + 4))
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func storeBigEndian(_ value: UInt16, at offset: Int) {
        assert(offset >= 0 && offset + 2 <= count)
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    func storeBigEndian(_ value: UInt32, at offset: Int) {
        assert(offset >= 0 && offset + 4 <= count)
        self[offset] = UInt8(truncatingIfNeeded: value >> 24)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    func storeBigEndian(_ value: MediaID, at offset: Int) { storeBigEndian(value.rawValue, at: offset) }

    @inline(__always)
    func storeBigEndian(_ value: ChannelNumber, at offset: Int) { storeBigEndian(value.rawValue, at: offset) }

    @inline(__always)
    func storeBigEndian(_ value: UInt64, at offset: Int) {
        storeBigEndian(UInt32(truncatingIfNeeded: value >> 32), at: offset)
        storeBigEndian(UInt32(truncatingIfNeeded: value), at: offset + 4)
    }

    /// Copies `source` to `offset` (the caller has checked that it fits).
    @inline(__always)
    func copy(_ source: UnsafeRawBufferPointer, to offset: Int) {
        assert(offset >= 0 && offset + source.count <= count)
        guard !source.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: self[offset..<(offset + source.count)]).copyMemory(from: source)
    }
}
