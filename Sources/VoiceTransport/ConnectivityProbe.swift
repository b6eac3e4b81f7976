import VoiceCore

/// The content of a connectivity probe, and of its reply, which echoes it unchanged.
///
/// It travels sealed (envelope content `.probe` / `.probeReply`), so it carries no integrity check of
/// its own; the envelope proves who sent it. The prober keeps its own record of when it sent each
/// transaction, so a reply cannot make a round-trip time up.
///
/// Layout (big-endian): version (1 byte), flags (1 byte), transaction (8 bytes), sent at (8 bytes,
/// the prober's `MediaTime`, meaningless to the replier).
public struct ConnectivityProbe: Sendable, Hashable {
    public static let formatVersion: UInt8 = 1
    public static let encodedBytes = 18
    /// Flag bit: the route already works and this probe only keeps it checked.
    static let keepaliveFlag: UInt8 = 0x01

    /// Unique per probe sent by one selector, so the reply names the probe it answers.
    public var transaction: UInt64
    /// The prober's clock when it sent the probe.
    public var sentAt: MediaTime
    /// True when the route already answered and the probe only keeps it checked.
    public var isKeepalive: Bool

    public init(transaction: UInt64, sentAt: MediaTime, isKeepalive: Bool = false) {
        self.transaction = transaction
        self.sentAt = sentAt
        self.isKeepalive = isKeepalive
    }

    /// Parses untrusted bytes: exactly `encodedBytes`, a known version, no unknown flag.
    public init(parsing bytes: some Collection<UInt8>) throws(TransportError) {
        guard bytes.count == Self.encodedBytes else {
            throw .probeWrongSize(bytes: bytes.count, expected: Self.encodedBytes)
        }
        let array = Array(bytes)
        guard array[0] == Self.formatVersion else { throw .probeUnsupportedVersion(array[0]) }
        guard array[1] & ~Self.keepaliveFlag == 0 else { throw .probeUnknownFlags(array[1] & ~Self.keepaliveFlag) }
        func word(at offset: Int) -> UInt64 {
            array[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }
        self.init(
            transaction: word(at: 2), sentAt: MediaTime(bitPattern: word(at: 10)),
            isKeepalive: array[1] & Self.keepaliveFlag != 0)
    }

    /// The `encodedBytes` bytes of this probe.
    public var bytes: [UInt8] {
        var output: [UInt8] = [Self.formatVersion, isKeepalive ? Self.keepaliveFlag : 0]
        output.reserveCapacity(Self.encodedBytes)
        for value in [transaction, UInt64(bitPattern: sentAt)] {
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        return output
    }

    /// Writes the probe into the first `encodedBytes` of `buffer` (for callers that seal in place).
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) {
        guard buffer.count >= Self.encodedBytes else {
            throw .bufferTooSmall(needed: Self.encodedBytes, available: buffer.count)
        }
        for (index, byte) in bytes.enumerated() { buffer[index] = byte }
    }
}
