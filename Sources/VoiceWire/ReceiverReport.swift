/// What a listener measured about one sender's stream over the last report interval.
///
/// It travels back to the sender and drives its in-band FEC, packet-loss hint and redundancy depth.
///
/// Layout, version 1 (26 bytes, all fields big-endian):
///
/// ```
///  byte    0        1        2        3        4        5        6        7
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///     0 |ver|type|fraction|     channel     |             reporter              |
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///     8 |              source               | highest sequence|   mean burst    |
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///    16 |          cumulative lost          |          jitter (samples)         |
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///    24 |  buffer delay   |
///       +--------+--------+
/// ```
///
/// Two fields are quantised on the wire: `fractionLost` as an 8-bit fraction of 256 (as in RTCP:
/// steps of 1/256, 1.0 saturates to 255/256) and `meanBurstLength` as unsigned 8.8 fixed point
/// (steps of 1/256 packet, at most 255.996). Both round to the nearest step; NaN and negative
/// values write as 0.
public struct ReceiverReport: Sendable, Hashable {
    /// Who listened.
    public var reporter: MediaID
    /// Whose stream this is about.
    public var source: MediaID
    public var channel: ChannelNumber
    public var highestSequence: UInt16
    /// 0…1 over the last report interval.
    public var fractionLost: Float
    /// Mean length of loss bursts in packets over the interval.
    public var meanBurstLength: Float
    public var cumulativeLost: UInt32
    /// RFC 3550 interarrival jitter, in 48 kHz samples.
    public var jitterSamples: UInt32
    public var bufferDelayMilliseconds: UInt16

    public static let encodedBytes = 26

    public init(
        reporter: MediaID, source: MediaID, channel: ChannelNumber, highestSequence: UInt16, fractionLost: Float,
        meanBurstLength: Float, cumulativeLost: UInt32, jitterSamples: UInt32, bufferDelayMilliseconds: UInt16
    ) {
        self.reporter = reporter
        self.source = source
        self.channel = channel
        self.highestSequence = highestSequence
        self.fractionLost = fractionLost
        self.meanBurstLength = meanBurstLength
        self.cumulativeLost = cumulativeLost
        self.jitterSamples = jitterSamples
        self.bufferDelayMilliseconds = bufferDelayMilliseconds
    }

    /// Parses an untrusted datagram, which must be exactly `encodedBytes` long.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireError) {
        try checkMessageType(bytes, expected: .receiverReport)
        guard bytes.count == Self.encodedBytes else {
            throw .reportWrongSize(bytes: bytes.count, expected: Self.encodedBytes)
        }
        self.init(
            reporter: bytes.mediaID(at: 4), source: bytes.mediaID(at: 8),
            channel: bytes.channelNumber(at: 2), highestSequence: bytes.bigEndianUInt16(at: 12),
            fractionLost: Float(bytes[1]) / 256, meanBurstLength: Float(bytes.bigEndianUInt16(at: 14)) / 256,
            cumulativeLost: bytes.bigEndianUInt32(at: 16), jitterSamples: bytes.bigEndianUInt32(at: 20),
            bufferDelayMilliseconds: bytes.bigEndianUInt16(at: 24))
    }

    /// Writes the report into `buffer` and returns `encodedBytes`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(WireError) -> Int {
        guard buffer.count >= Self.encodedBytes else {
            throw .bufferTooSmall(needed: Self.encodedBytes, available: buffer.count)
        }
        buffer[0] = wireFirstByte(.receiverReport)
        buffer[1] = UInt8(Self.quantise(fractionLost, maximum: 255))
        buffer.storeBigEndian(channel, at: 2)
        buffer.storeBigEndian(reporter, at: 4)
        buffer.storeBigEndian(source, at: 8)
        buffer.storeBigEndian(highestSequence, at: 12)
        buffer.storeBigEndian(UInt16(Self.quantise(meanBurstLength, maximum: 65535)), at: 14)
        buffer.storeBigEndian(cumulativeLost, at: 16)
        buffer.storeBigEndian(jitterSamples, at: 20)
        buffer.storeBigEndian(bufferDelayMilliseconds, at: 24)
        return Self.encodedBytes
    }

    /// `value × 256` rounded to the nearest step and clamped to `0...maximum`; NaN gives 0.
    static func quantise(_ value: Float, maximum: Int) -> Int {
        guard value.isFinite || value == .infinity, value > 0 else { return 0 }
        let scaled = (value * 256).rounded()
        return scaled >= Float(maximum) ? maximum : Int(scaled)
    }
}
