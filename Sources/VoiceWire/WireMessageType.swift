/// The kind of message a datagram carries: the low nibble of its first byte.
///
/// The high nibble of that byte is the format version (`wireVersion`), so a receiver can reject a
/// datagram from an incompatible peer before reading anything else.
public enum WireMessageType: UInt8, Sendable, Hashable, CaseIterable {
    /// A `VoicePacketView`: one Opus frame plus optional redundant copies of earlier ones.
    case voice = 1
    /// A `ReceiverReport`: what a listener measured about one sender's stream.
    case receiverReport = 2
    /// A `SealedEnvelopeHeader` followed by an encrypted message and its authentication tag: how
    /// every message between engines travels once a call or match has agreed its keys.
    case sealed = 3
    /// A message between an engine and a relay server (joining, channel membership, keepalives).
    case relay = 4
    /// A `RelayPeerMessage`: from one relay of a cluster to another, about a match both hold part of.
    case peer = 5
}

/// The version of the wire format this module reads and writes (the high nibble of byte 0).
public let wireVersion: UInt8 = 1

/// Reads the message type of an untrusted datagram, checking its version.
///
/// Only byte 0 is read; the message's own parser checks the rest.
public func wireMessageType(of bytes: UnsafeRawBufferPointer) throws(WireError) -> WireMessageType {
    guard bytes.count >= 1 else { throw .truncatedHeader(needed: 1, available: 0) }
    let first = bytes[0]
    let version = first >> 4
    guard version == wireVersion else { throw .unsupportedVersion(version) }
    guard let type = WireMessageType(rawValue: first & 0x0F) else { throw .unknownMessageType(first & 0x0F) }
    return type
}

/// Byte 0 of every message: version in the high nibble, type in the low nibble.
@inline(__always)
func wireFirstByte(_ type: WireMessageType) -> UInt8 {
    wireVersion << 4 | type.rawValue
}

/// Checks byte 0 of a datagram that the caller expects to be of type `expected`.
@inline(__always)
func checkMessageType(_ bytes: UnsafeRawBufferPointer, expected: WireMessageType) throws(WireError) {
    let found = try wireMessageType(of: bytes)
    guard found == expected else { throw .wrongMessageType(expected: expected, found: found) }
}
