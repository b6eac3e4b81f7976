/// Who is near enough to be heard on a positional channel. A player comes into hearing within
/// `range` and goes out of it only beyond `range + margin`, so that one standing at the edge, or
/// walking along it, is not cut in and out from frame to frame.
public struct HearingRange: Sendable, Hashable {
    /// The distance within which a player is heard.
    public let range: Float
    /// How much farther a player already heard may go before it is lost.
    public let margin: Float
    private let enterSquared: Float
    private let leaveSquared: Float

    /// The margin the relay and the engine use: a tenth of the range, at least one unit.
    public static func defaultMargin(for range: Float) -> Float { max(1, range / 10) }

    /// - Parameters:
    ///   - range: positive and finite.
    ///   - margin: nil for `defaultMargin(for:)`.
    public init(range: Float, margin: Float? = nil) {
        precondition(range > 0 && range.isFinite, "a hearing range must be positive and finite")
        self.range = range
        self.margin = margin ?? Self.defaultMargin(for: range)
        enterSquared = range * range
        leaveSquared = (range + self.margin) * (range + self.margin)
    }

    /// Whether a player at `distanceSquared` is heard, given whether it was heard until now.
    @inline(__always)
    public func isAudible(distanceSquared: Float, wasAudible: Bool) -> Bool {
        distanceSquared <= (wasAudible ? leaveSquared : enterSquared)
    }
}
