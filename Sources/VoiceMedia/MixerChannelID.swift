/// The mixer's own number for one channel of one session, unique across sessions: not the
/// wire's `ChannelNumber`, which two matches may share.
public struct MixerChannelID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(integerLiteral value: UInt16) { rawValue = value }

    /// The ID after this one (wrapping), for handing out fresh IDs.
    public var next: MixerChannelID { MixerChannelID(rawValue: rawValue &+ 1) }

    public static func < (lhs: MixerChannelID, rhs: MixerChannelID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
