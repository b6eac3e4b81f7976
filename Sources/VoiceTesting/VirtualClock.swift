import VoiceCore

/// Simulated time: advances only when told to, so a simulation runs as fast as the CPU allows and
/// gives the same result on every run.
public struct VirtualClock: Sendable, Hashable {
    public var now: MediaTime

    public init(now: MediaTime = 0) { self.now = now }

    public mutating func advance(by nanoseconds: Int64) {
        now += nanoseconds
    }
}
