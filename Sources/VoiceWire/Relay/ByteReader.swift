/// Reads big-endian fields from untrusted bytes; every read returns nil instead of running past the end.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func uint8() -> UInt8? { take(1).map { $0[$0.startIndex] } }

    mutating func uint16() -> UInt16? {
        take(2).map { UInt16($0[$0.startIndex]) << 8 | UInt16($0[$0.startIndex + 1]) }
    }

    mutating func uint32() -> UInt32? {
        take(4).map { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }

    mutating func mediaID() -> MediaID? { uint32().map(MediaID.init(rawValue:)) }

    mutating func channel() -> ChannelNumber? { uint16().map(ChannelNumber.init(rawValue:)) }

    /// A big-endian IEEE 754 single.
    mutating func float() -> Float? { uint32().map(Float.init(bitPattern:)) }

    mutating func uint64() -> UInt64? {
        take(8).map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    }

    /// A u16 length followed by that many bytes of valid UTF-8.
    mutating func string() -> String? {
        guard let length = uint16(), let raw = take(Int(length)) else { return nil }
        return String(validating: raw, as: UTF8.self)
    }
}

/// Appends big-endian fields.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func uint8(_ value: UInt8) { bytes.append(value) }
    mutating func uint16(_ value: UInt16) { bytes.append(UInt8(value >> 8)); bytes.append(UInt8(value & 0xFF)) }
    mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    mutating func mediaID(_ value: MediaID) { uint32(value.rawValue) }
    mutating func channel(_ value: ChannelNumber) { uint16(value.rawValue) }
    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    mutating func append(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }
    /// Callers check the length against the message's limit first.
    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        uint16(UInt16(utf8.count))
        bytes.append(contentsOf: utf8)
    }
}
