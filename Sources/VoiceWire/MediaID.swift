import Crypto

/// The 32-bit number that stands for a participant in every datagram (`sender`, `destination`).
///
/// Participant IDs are the embedding app's strings and can be long; datagrams carry this short
/// form instead. Every engine and the relay derive it the same way from the participant ID, so it
/// never needs to be negotiated. 0 is reserved for "everyone" and never derived.
public struct MediaID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The first four bytes of SHA-256 over a domain label and the participant ID's UTF-8 bytes.
    ///
    /// Collisions among the few dozen players of a match are improbable (about n²/2³³); a match
    /// that sees one refuses the second participant rather than mixing their voices.
    public init(participant: String) {
        var hasher = SHA256()
        hasher.update(data: Array("voicechat media id v1\u{0}".utf8))
        hasher.update(data: Array(participant.utf8))
        let value = hasher.finalize().withUnsafeBytes { digest in
            UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])
        }
        self.rawValue = value == 0 ? 1 : value
    }

    public static func < (lhs: MediaID, rhs: MediaID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue, radix: 16) }
}
