#if canImport(Glibc)
    import Glibc
#endif

/// Where a player is heard: a level (0…1) for their distance, and a side, from −1 (all left)
/// through 0 (centre) to 1 (all right), for a stereo output; a mono output takes the level alone.
public struct MixerPlacement: Sendable, Hashable {
    public let level: Float
    public let pan: Float
    /// The left and right levels: equal-power panning (the power of the two sums to that of the
    /// centre, so a player does not grow louder or fainter walking round the listener), scaled so
    /// that the centre is the level itself on both sides, as a mono output plays it. Worked out
    /// here, when a player moves, not for every mixed frame.
    public let left: Float
    public let right: Float

    public init(level: Float, pan: Float = 0) {
        self.level = min(max(level.isFinite ? level : 0, 0), 1)
        self.pan = min(max(pan.isFinite ? pan : 0, -1), 1)
        if self.pan == 0 {
            // Exactly the level in the centre, where the formula would round it.
            (left, right) = (self.level, self.level)
        } else {
            let angle = (self.pan + 1) * Float.pi / 4
            let scale = self.level * Float(2).squareRoot()
            (left, right) = (scale * cos(angle), scale * sin(angle))
        }
    }

    public static let center = MixerPlacement(level: 1)

    /// The left and right levels together.
    public var stereoGains: (left: Float, right: Float) { (left, right) }
}
