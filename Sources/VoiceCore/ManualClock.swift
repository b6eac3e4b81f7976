import Synchronization

/// Where an engine's "now" comes from.
///
/// Real calls read the monotonic clock; simulations and tests give the engine a `ManualClock`
/// and move it themselves, so timeouts, failover and media run in virtual time.
public final class ManualClock: Sendable {
    private let time: Mutex<MediaTime>

    public init(start: MediaTime = 0) { time = Mutex(start) }

    public var now: MediaTime { time.withLock { $0 } }

    public func set(_ now: MediaTime) { time.withLock { $0 = now } }

    public func advance(by nanoseconds: MediaTime) { time.withLock { $0 += nanoseconds } }
}
