/// The content of a connectivity probe, and of its reply, which echoes it unchanged.
///
/// It travels sealed (envelope content `.probe` / `.probeReply`), so it carries no integrity check of
/// its own; the envelope proves who sent it. The prober keeps its own record of when it sent each
/// transaction, so a reply cannot make a round-trip time up.
///
/// Layout (big-endian): version (1 byte), flags (1 byte), transaction (8 bytes), sent at (8 bytes,
/// the prober's clock in nanoseconds, meaningless to the replier).
public struct ConnectivityProbe: Sendable, Hashable {
    public static let formatVersion: UInt8 = 1
    public static let encodedBytes = 18
    /// Flag bit: the route already works and this probe only keeps it checked.
    static let keepaliveFlag: UInt8 = 0x01

    /// Unique per probe sent by one selector, so the reply names the probe it answers.
    public var transaction: UInt64
    /// The prober's clock (its `MediaTime`, nanoseconds) when it sent the probe.
    public var sentAt: Int64
    /// True when the route already answered and the probe only keeps it checked.
    public var isKeepalive: Bool

    public init(transaction: UInt64, sentAt: Int64, isKeepalive: Bool = false) {
        self.transaction = transaction
        self.sentAt = sentAt
        self.isKeepalive = isKeepalive
    }

    /// Parses untrusted bytes: exactly `encodedBytes`, a known version, no unknown flag.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        guard bytes.count == Self.encodedBytes else {
            throw .probeWrongSize(bytes: bytes.count, expected: Self.encodedBytes)
        }
        // Copied into a buffer on the stack: an `Array` would allocate for every probe.
        var storage: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let (version, flags, transaction, sentAt) = withUnsafeMutableBytes(of: &storage) { raw in
            raw.copyBytes(from: bytes)
            let read = UnsafeRawBufferPointer(raw)
            return (read[0], read[1], read.bigEndianUInt64(at: 2), read.bigEndianUInt64(at: 10))
        }
        guard version == Self.formatVersion else { throw .probeUnsupportedVersion(version) }
        guard flags & ~Self.keepaliveFlag == 0 else { throw .probeUnknownFlags(flags & ~Self.keepaliveFlag) }
        self.init(
            transaction: transaction, sentAt: Int64(bitPattern: sentAt),
            isKeepalive: flags & Self.keepaliveFlag != 0)
    }

    /// The `encodedBytes` bytes of this probe.
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.encodedBytes) { buffer, count in
            Self.encode(self, into: UnsafeMutableRawBufferPointer(buffer))
            count = Self.encodedBytes
        }
    }

    /// Writes the probe into the first `encodedBytes` of `buffer` (for callers that seal in place).
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(WireError) {
        guard buffer.count >= Self.encodedBytes else {
            throw .bufferTooSmall(needed: Self.encodedBytes, available: buffer.count)
        }
        Self.encode(self, into: buffer)
    }

    /// The layout above, into a buffer known to hold `encodedBytes`.
    private static func encode(_ probe: ConnectivityProbe, into buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = formatVersion
        buffer[1] = probe.isKeepalive ? keepaliveFlag : 0
        buffer.storeBigEndian(probe.transaction, at: 2)
        buffer.storeBigEndian(UInt64(bitPattern: probe.sentAt), at: 10)
    }
}
