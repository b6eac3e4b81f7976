/// Why a datagram could not be parsed, or a message could not be written.
///
/// Every malformation has its own case so a receiver can count them separately; the description
/// says what was wrong in words an operator can act on.
public enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The datagram ends before its fixed header does.
    case truncatedHeader(needed: Int, available: Int)
    /// The high nibble of byte 0 is a version this build does not speak.
    case unsupportedVersion(UInt8)
    /// The low nibble of byte 0 names no known message type.
    case unknownMessageType(UInt8)
    /// The datagram is a valid message, but not of the type the parser was asked for.
    case wrongMessageType(expected: WireMessageType, found: WireMessageType)
    /// The redundancy flag is set but the count byte says more frames than the format allows.
    case tooManyRedundantFrames(count: Int, maximum: Int)
    /// The redundancy flag is set but the count byte says 0 frames.
    case redundancyFlagWithoutFrames
    /// A redundant frame has length 0.
    case emptyRedundantFrame(index: Int)
    /// A redundant frame's timestamp offset is 0, or not larger than the more recent frame's.
    case invalidRedundantOffset(index: Int, offset: UInt16)
    /// A redundant frame's declared length runs past the end of the datagram.
    case redundantFrameOverrunsPacket(index: Int, length: Int, available: Int)
    /// Nothing is left for the primary frame after the header and redundant frames.
    case emptyPrimary
    /// The datagram or the packet to write is larger than `VoicePacketWriter.maximumPacketBytes`.
    case oversizePacket(bytes: Int, maximum: Int)
    /// A receiver report does not have exactly `ReceiverReport.encodedBytes` bytes.
    case reportWrongSize(bytes: Int, expected: Int)
    /// The caller's output buffer cannot hold the message being written.
    case bufferTooSmall(needed: Int, available: Int)
    /// A sealed envelope is shorter than its clear header plus authentication tag.
    case envelopeTooShort(bytes: Int, needed: Int)
    /// A sealed envelope names a content type this build does not know.
    case unknownSealedContent(UInt8)
    /// A second redundant frame was given without a first one (they are given most recent first).
    case redundantFramesOutOfOrder
    /// A connectivity probe does not have exactly `ConnectivityProbe.encodedBytes` bytes.
    case probeWrongSize(bytes: Int, expected: Int)
    /// A connectivity probe was written by a format version this build does not read.
    case probeUnsupportedVersion(UInt8)
    /// A connectivity probe sets flag bits this build does not know.
    case probeUnknownFlags(UInt8)

    public var description: String {
        switch self {
        case .truncatedHeader(let needed, let available):
            "truncated header: the datagram has \(available) bytes but its header needs \(needed)"
        case .unsupportedVersion(let version):
            "unsupported wire version \(version) (this build speaks version \(wireVersion)); "
                + "the peer runs an incompatible release"
        case .unknownMessageType(let type):
            "unknown message type \(type) in byte 0 (known: "
                + WireMessageType.allCases.map { "\($0.rawValue) = \($0)" }.joined(separator: ", ") + ")"
        case .wrongMessageType(let expected, let found):
            "expected a \(expected) message but the datagram is a \(found) message"
        case .tooManyRedundantFrames(let count, let maximum):
            "voice packet declares \(count) redundant frames; at most \(maximum) are allowed"
        case .redundancyFlagWithoutFrames:
            "voice packet has the redundancy flag set but a redundant frame count of 0"
        case .emptyRedundantFrame(let index):
            "redundant frame \(index) has length 0; omit it instead"
        case .invalidRedundantOffset(let index, let offset):
            "redundant frame \(index) has timestamp offset \(offset); offsets must be positive and grow "
                + "from the most recent frame to older ones"
        case .redundantFrameOverrunsPacket(let index, let length, let available):
            "redundant frame \(index) declares \(length) bytes but only \(available) remain in the packet"
        case .emptyPrimary:
            "voice packet has no primary frame after its header and redundant frames"
        case .oversizePacket(let bytes, let maximum):
            "voice packet of \(bytes) bytes exceeds the maximum of \(maximum); lower the bitrate or "
                + "the redundancy depth"
        case .reportWrongSize(let bytes, let expected):
            "receiver report has \(bytes) bytes; a version \(wireVersion) report has exactly \(expected)"
        case .bufferTooSmall(let needed, let available):
            "output buffer has \(available) bytes but the message needs \(needed); "
                + "allocate VoicePacketWriter.maximumPacketBytes"
        case .envelopeTooShort(let bytes, let needed):
            "sealed envelope has \(bytes) bytes, fewer than the \(needed) its clear header and "
                + "authentication tag need"
        case .unknownSealedContent(let content):
            "sealed envelope carries unknown content type \(content) (known: "
                + SealedContent.allCases.map { "\($0.rawValue) = \($0)" }.joined(separator: ", ") + ")"
        case .redundantFramesOutOfOrder:
            "a second redundant frame was given without a first; give redundant frames most recent first"
        case .probeWrongSize(let bytes, let expected):
            "connectivity probe has \(bytes) bytes; it must have exactly \(expected)"
        case .probeUnsupportedVersion(let version):
            "connectivity probe has format version \(version); this build reads version "
                + "\(ConnectivityProbe.formatVersion), so the peer runs an incompatible release"
        case .probeUnknownFlags(let flags):
            "connectivity probe sets unknown flag bits 0x\(String(flags, radix: 16)); the peer runs an incompatible release"
        }
    }
}

extension WireMessageType: CustomStringConvertible {
    public var description: String {
        switch self {
        case .voice: "voice"
        case .receiverReport: "receiver report"
        case .sealed: "sealed"
        case .relay: "relay"
        case .peer: "relay peer"
        }
    }
}
