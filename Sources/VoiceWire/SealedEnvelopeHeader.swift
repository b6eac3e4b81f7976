/// What a sealed envelope carries once it is opened.
public enum SealedContent: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A `VoicePacketView` datagram.
    case voice = 1
    /// A `ReceiverReport` datagram.
    case receiverReport = 2
    /// A connectivity probe on a candidate path.
    case probe = 3
    /// The answer to a connectivity probe.
    case probeReply = 4
    /// The game's own unreliable data.
    case gameData = 5

    public var description: String {
        switch self {
        case .voice: "voice"
        case .receiverReport: "receiver report"
        case .probe: "probe"
        case .probeReply: "probe reply"
        case .gameData: "game data"
        }
    }
}

/// The clear header of a sealed envelope: everything a relay needs to route it, and everything a
/// receiver needs to find the key and nonce, authenticated (as associated data) but not encrypted.
///
/// Layout, version 1 (big-endian):
///
/// ```
///  byte    0        1        2        3        4        5        6        7
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///     0 |ver|type| content|     channel     |              sender               |
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///     8 |           destination             | epoch  |   counter (8 bytes) …
///       +--------+--------+--------+--------+--------+--------+--------+--------+
///    16 |       … counter                   | ciphertext … | tag (16 bytes) |
///       +--------+--------+--------+--------+
/// ```
///
/// `ver|type` is `wireVersion << 4 | WireMessageType.sealed`. `destination` 0 means every member of
/// the channel that listens (a relay fans it out); any other value names one participant. The nonce
/// is the epoch and the counter, so a sender never reuses one under the same key.
public struct SealedEnvelopeHeader: Sendable, Hashable {
    /// Bytes of the clear header.
    public static let encodedBytes = 21
    /// Bytes of the authentication tag after the ciphertext.
    public static let tagBytes = 16
    /// The destination that means "every listening member of the channel".
    public static let everyone = MediaID.everyone

    public var content: SealedContent
    /// The voice channel this belongs to; 0 for what belongs to the call or match as a whole.
    public var channel: ChannelNumber
    /// The sender's media ID.
    public var sender: MediaID
    /// One participant's media ID, or `everyone`.
    public var destination: MediaID
    /// Which of the sender's keys sealed it.
    public var epoch: UInt8
    /// The sender's message counter under that key: the explicit part of the nonce.
    public var counter: UInt64

    public init(
        content: SealedContent, channel: ChannelNumber, sender: MediaID, destination: MediaID, epoch: UInt8,
        counter: UInt64
    ) {
        self.content = content
        self.channel = channel
        self.sender = sender
        self.destination = destination
        self.epoch = epoch
        self.counter = counter
    }

    /// Parses the clear header of an untrusted datagram and checks that a tag can follow it.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireError) {
        try checkMessageType(bytes, expected: .sealed)
        let needed = Self.encodedBytes + Self.tagBytes
        guard bytes.count >= needed else { throw .envelopeTooShort(bytes: bytes.count, needed: needed) }
        guard let content = SealedContent(rawValue: bytes[1]) else { throw .unknownSealedContent(bytes[1]) }
        self.init(
            content: content, channel: bytes.channelNumber(at: 2), sender: bytes.mediaID(at: 4),
            destination: bytes.mediaID(at: 8), epoch: bytes[12],
            counter: UInt64(bytes.bigEndianUInt32(at: 13)) << 32 | UInt64(bytes.bigEndianUInt32(at: 17)))
    }

    /// Writes the clear header into the first `encodedBytes` of `buffer`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(WireError) {
        guard buffer.count >= Self.encodedBytes else {
            throw .bufferTooSmall(needed: Self.encodedBytes, available: buffer.count)
        }
        buffer[0] = wireFirstByte(.sealed)
        buffer[1] = content.rawValue
        buffer.storeBigEndian(channel, at: 2)
        buffer.storeBigEndian(sender, at: 4)
        buffer.storeBigEndian(destination, at: 8)
        buffer[12] = epoch
        buffer.storeBigEndian(UInt32(truncatingIfNeeded: counter >> 32), at: 13)
        buffer.storeBigEndian(UInt32(truncatingIfNeeded: counter), at: 17)
    }

    /// Bytes of a whole envelope around `plaintextBytes` of content.
    public static func envelopeBytes(plaintextBytes: Int) -> Int {
        encodedBytes + plaintextBytes + tagBytes
    }
}
