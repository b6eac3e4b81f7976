/// A participant's ID: the embedding app's own string for a player (GameKit's `playerID`), the
/// same on every engine and at the relay. Datagrams carry its media ID instead (VoiceWire's
/// `MediaID`, derived from it).
public struct ParticipantID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { rawValue = value }

    public var isEmpty: Bool { rawValue.isEmpty }

    public static func < (lhs: ParticipantID, rhs: ParticipantID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
