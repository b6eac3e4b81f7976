/// Where a player stands in the game's world, in the game's own units (metres, say), as a
/// positional voice channel's range and attenuation read it.
public struct VoicePosition: Sendable, Hashable, CustomStringConvertible {
    public var x: Float
    public var y: Float
    public var z: Float

    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let origin = VoicePosition(x: 0, y: 0, z: 0)

    /// Whether every coordinate is a finite number, as a position from the network must be.
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The squared distance, which range checks compare without a square root.
    @inline(__always)
    public func distanceSquared(to other: VoicePosition) -> Float {
        let dx = x - other.x
        let dy = y - other.y
        let dz = z - other.z
        return dx * dx + dy * dy + dz * dz
    }

    public func distance(to other: VoicePosition) -> Float { distanceSquared(to: other).squareRoot() }

    public var description: String { "(\(x), \(y), \(z))" }
}
