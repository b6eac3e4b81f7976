/// What one IP address may do before it has joined: hold at most so many TCP connections that
/// have not joined, and try so many joins a second (each costs a token check). One host could
/// otherwise hold every descriptor the relay has, or keep it verifying tokens. Counts what it
/// refuses, per address, for the relay to log once per housekeeping sweep rather than per refusal.
struct RelayAddressLimits {
    struct Refusals: Hashable {
        var connections = 0
        var joins = 0
    }

    private let maximumUnjoined: Int
    private let joinRate: Double
    private let joinBurst: Double
    /// Unjoined connections by the address they come from.
    private var unjoined: [String: Int] = [:]
    private var joinBuckets: [String: (bucket: TokenBucket, lastUsed: UInt64)] = [:]
    private var refusals: [String: Refusals] = [:]

    /// Addresses with a join bucket at most; beyond it, new addresses share one. Spoofed UDP
    /// sources could otherwise grow the table without bound.
    static let maximumTrackedAddresses = 65_536
    /// A join bucket unused this long is forgotten (it would be full again anyway).
    static let idleBucketNanoseconds: UInt64 = 60_000_000_000
    private static let sharedHost = "(other addresses)"

    init(_ limits: RelayLimits) {
        maximumUnjoined = limits.maximumUnjoinedConnectionsPerAddress
        joinRate = limits.joinAttemptsPerSecondPerAddress
        joinBurst = limits.joinAttemptBurst
    }

    /// Counts a connection that just opened from `host` against its address; false (and counted as
    /// refused) when the address already holds as many unjoined connections as it may.
    mutating func admitConnection(from host: String) -> Bool {
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
    mutating func release(from host: String) {
        let remaining = unjoined[host, default: 1] - 1
        unjoined[host] = remaining > 0 ? remaining : nil
    }

    /// Takes a join attempt from `host` out of its bucket; false (and counted) when there is none.
    mutating func admitJoinAttempt(from host: String, now: UInt64) -> Bool {
        let key = joinBuckets[host] != nil || joinBuckets.count < Self.maximumTrackedAddresses ? host : Self.sharedHost
        var entry = joinBuckets[key] ?? (TokenBucket(ratePerSecond: joinRate, burst: joinBurst, now: now), now)
        let admitted = entry.bucket.take(1, now: now)
        entry.lastUsed = now
        joinBuckets[key] = entry
        if !admitted { refusals[host, default: Refusals()].joins += 1 }
        return admitted
    }

    /// Forgets idle join buckets; returns what was refused since the last call, by address.
    mutating func sweep(now: UInt64) -> [(host: String, refusals: Refusals)] {
        joinBuckets = joinBuckets.filter { now &- $0.value.lastUsed < Self.idleBucketNanoseconds }
        defer { refusals.removeAll() }
        return refusals.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
