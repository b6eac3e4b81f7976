/// A deterministic random number generator: the same seed gives the same sequence on every machine
/// and every run, so simulations and fuzz tests are reproducible from their seed alone.
///
/// xoshiro256** (Blackman and Vigna), seeded through SplitMix64 so that nearby seeds such as 1, 2, 3
/// still give unrelated streams.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var splitMix = seed
        func nextSplitMix() -> UInt64 {
            splitMix &+= 0x9E37_79B9_7F4A_7C15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (nextSplitMix(), nextSplitMix(), nextSplitMix(), nextSplitMix())
    }

    public mutating func next() -> UInt64 {
        let result = rotateLeft(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotateLeft(state.3, 45)
        return result
    }

    /// A uniform value in [0, 1) with 53 bits of precision.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `probability` (values outside 0…1 act as 0 or 1).
    public mutating func chance(_ probability: Double) -> Bool {
        nextUnit() < probability
    }

    private func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
