/// The channel number voice packets carry for a named channel: the same on every engine, so
/// players that start the same name meet in the same channel without negotiating.
///
/// FNV-1a over the name's UTF-8 bytes, folded to 16 bits; 0 is reserved for the session's own
/// traffic and a name that folds to it maps to 1. Two names of one match colliding is improbable
/// (1 in 65 535 per pair); a match refuses to open a second name with a number already in use.
public struct ChannelNumber: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(integerLiteral value: UInt16) { rawValue = value }

    public init(named name: String) {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let folded = UInt16(truncatingIfNeeded: hash >> 16) ^ UInt16(truncatingIfNeeded: hash)
        rawValue = folded == 0 ? 1 : folded
    }

    /// The session's own traffic (probes, reports, game data), under no voice channel.
    public static let session = ChannelNumber(rawValue: 0)

    public static func < (lhs: ChannelNumber, rhs: ChannelNumber) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
