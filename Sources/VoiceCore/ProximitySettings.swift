/// How a positional voice channel sounds with distance: heard within `range`, at full level
/// up to `referenceDistance`, then falling off by `rolloff`, down to silence at the range.
public struct ProximitySettings: Sendable, Hashable, CustomStringConvertible {
    /// How the level falls between the reference distance and the range.
    public enum Rolloff: String, Sendable, Hashable, CaseIterable {
        /// Level ∝ reference / distance (−6 dB per doubling of distance, as sound in the open),
        /// faded to silence over the last tenth of the range so that the edge is not a step.
        case inverseDistance = "inverse"
        /// Level falls in a straight line from full at the reference distance to 0 at the range.
        case linear
    }

    /// The farthest a player is heard from, in the game's units.
    public let range: Float
    /// Within it a player is heard at full level.
    public let referenceDistance: Float
    public let rolloff: Rolloff

    /// Throws `ProximitySettingsError` unless 0 < referenceDistance < range, both finite.
    public init(range: Float, referenceDistance: Float = 1, rolloff: Rolloff = .inverseDistance)
        throws(ProximitySettingsError)
    {
        guard range.isFinite, range > 0 else { throw .range(range) }
        guard referenceDistance.isFinite, referenceDistance > 0, referenceDistance < range else {
            throw .referenceDistance(referenceDistance, range: range)
        }
        self.range = range
        self.referenceDistance = referenceDistance
        self.rolloff = rolloff
    }

    /// The hearing range the relay and direct senders use for this channel (its margin included).
    public var hearingRange: HearingRange { HearingRange(range: range) }

    /// The level (0…1) at which a player `distance` away is heard.
    public func gain(atDistance distance: Float) -> Float {
        guard distance < range else { return 0 }
        guard distance > referenceDistance else { return 1 }
        switch rolloff {
        case .linear:
            return (range - distance) / (range - referenceDistance)
        case .inverseDistance:
            let fadeStart = range * 0.9
            let edge = distance > fadeStart ? (range - distance) / (range - fadeStart) : 1
            return referenceDistance / distance * edge
        }
    }

    public var description: String { "range \(range), full within \(referenceDistance), \(rolloff.rawValue)" }
}

/// Why proximity settings were refused.
public enum ProximitySettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    case range(Float)
    case referenceDistance(Float, range: Float)

    public var description: String {
        switch self {
        case .range(let range): "a proximity range of \(range) is not a positive number"
        case .referenceDistance(let reference, let range):
            "a reference distance of \(reference) is not a positive number below the range (\(range))"
        }
    }
}
