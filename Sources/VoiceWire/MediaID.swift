import Crypto
import VoiceCore

/// The 32-bit number that stands for a participant in every datagram (`sender`, `destination`).
///
/// Participant IDs are the embedding app's strings and can be long; datagrams carry this short
/// form instead. Every engine and the relay derive it the same way from the participant ID, so it
/// never needs to be negotiated. 0 is reserved for "everyone" and never derived.
public struct MediaID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(integerLiteral value: UInt32) { rawValue = value }

    /// Every listener of a channel, as a destination.
    public static let everyone = MediaID(rawValue: 0)

    /// The first four bytes of SHA-256 over a domain label and the participant ID's UTF-8 bytes.
    ///
    /// Collisions among the few dozen players of a match are improbable (about n²/2³³); a match
    /// that sees one refuses the second participant rather than mixing their voices.
    public init(participant: ParticipantID) {
        var hasher = SHA256()
        hasher.update(data: Array("voicechat media id v1\u{0}".utf8))
        hasher.update(data: Array(participant.rawValue.utf8))
        let value = hasher.finalize().withUnsafeBytes { digest in
            UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])
        }
        self.rawValue = value == 0 ? 1 : value
    }

    public static func < (lhs: MediaID, rhs: MediaID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue, radix: 16) }
}

extension ParticipantID {
    /// The short form every datagram carries, derived the same way by every engine and the relay.
    public var mediaID: MediaID { MediaID(participant: self) }
}
