/// What one IP address may do before it has said who it is (a relay's join, a listener's hello):
/// hold at most so many TCP connections that have not, and make so many attempts a second (each
/// costs a token check or a hello). One host could otherwise hold every descriptor a server has, or
/// keep it busy. Counts what it refuses, per address, for the server to log once per sweep rather
/// than per refusal.
public struct AddressLimits: Sendable {
    public struct Refusals: Hashable, Sendable {
        public var connections = 0
        public var attempts = 0
    }

    private let maximumUnjoined: Int
    private let attemptRate: Double
    private let attemptBurst: Double
    /// Unjoined connections by the address they come from.
    private var unjoined: [String: Int] = [:]
    private var attemptBuckets: [String: (bucket: TokenBucket, lastUsed: UInt64)] = [:]
    private var refusals: [String: Refusals] = [:]

    /// Addresses with an attempt bucket at most; beyond it, new addresses share one. Spoofed UDP
    /// sources could otherwise grow the table without bound.
    public static let maximumTrackedAddresses = 65_536
    /// An attempt bucket unused this long is forgotten (it would be full again anyway).
    public static let idleBucketNanoseconds: UInt64 = 60_000_000_000
    private static let sharedHost = "(other addresses)"

    public init(maximumUnjoinedConnections: Int, attemptsPerSecond: Double, attemptBurst: Double) {
        maximumUnjoined = maximumUnjoinedConnections
        attemptRate = attemptsPerSecond
        self.attemptBurst = attemptBurst
    }

    /// Counts a connection that just opened from `host` against its address; false (and counted as
    /// refused) when the address already holds as many unjoined connections as it may.
    public mutating func admitConnection(from host: String) -> Bool {
        let count = unjoined[host, default: 0]
        guard count < maximumUnjoined else {
            refusals[host, default: Refusals()].connections += 1
            return false
        }
        unjoined[host] = count + 1
        return true
    }

    /// A connection admitted from `host` joined, closed or was closed: it no longer counts
    /// against its address.
    public mutating func release(from host: String) {
        let remaining = unjoined[host, default: 1] - 1
        unjoined[host] = remaining > 0 ? remaining : nil
    }

    /// Takes an attempt from `host` out of its bucket; false (and counted) when there is none.
    public mutating func admitAttempt(from host: String, now: UInt64) -> Bool {
        let key =
            attemptBuckets[host] != nil || attemptBuckets.count < Self.maximumTrackedAddresses ? host : Self.sharedHost
        var entry =
            attemptBuckets[key] ?? (TokenBucket(ratePerSecond: attemptRate, burst: attemptBurst, now: now), now)
        let admitted = entry.bucket.take(1, now: now)
        entry.lastUsed = now
        attemptBuckets[key] = entry
        if !admitted { refusals[host, default: Refusals()].attempts += 1 }
        return admitted
    }

    /// Forgets idle attempt buckets; returns what was refused since the last call, by address.
    public mutating func sweep(now: UInt64) -> [(host: String, refusals: Refusals)] {
        attemptBuckets = attemptBuckets.filter { now &- $0.value.lastUsed < Self.idleBucketNanoseconds }
        defer { refusals.removeAll() }
        return refusals.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
