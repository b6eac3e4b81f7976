import Logging
import NIOCore
import VoiceRelayShared
import VoiceWire

/// Who may join a relay, and how often: tokens checked against the secret, per-address limits on
/// connections that have not joined and on join attempts, and refusals told apart from the
/// retries of the same one. Keeps what each TCP connection is (where from, whether it has joined)
/// until it joins or closes.
///
/// Part of `RelayState`, on its event loop; it does no I/O.
struct RelayGate {
    private let configuration: RelayConfiguration
    private let logger: Logger
    /// Where each TCP connection comes from, as its log lines name it.
    private var connectionPeers: [RelayConnectionID: String] = [:]
    /// TCP connections that have not joined yet, and when each opened.
    private(set) var unjoinedConnections: [RelayConnectionID: UInt64] = [:]
    /// Where each TCP connection comes from: its IP address, for the per-address limits.
    private var connectionHosts: [RelayConnectionID: String] = [:]
    private var addressLimits: AddressLimits
    /// When each player (by participant ID and reason) was last refused: a client joins over
    /// signalling, UDP and TCP at once, and retries, so one refused player is one refusal, logged
    /// and counted once within `refusalWindow`.
    private var lastRefusals: [String: UInt64] = [:]
    static let refusalWindow: UInt64 = 10_000_000_000
    /// The time of the latest call that brought one.
    var latestNow: UInt64 = 0

    init(configuration: RelayConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        addressLimits = AddressLimits(
            maximumUnjoinedConnections: configuration.limits.maximumUnjoinedConnectionsPerAddress,
            attemptsPerSecond: configuration.limits.joinAttemptsPerSecondPerAddress,
            attemptBurst: configuration.limits.joinAttemptBurst)
    }

    /// The token of a join (media or signalling) if it admits `participant`, or why not.
    func admittedToken(_ text: String, participant: String) -> Admission {
        let token: RelayToken
        do {
            token = try RelayToken(parsing: text)
            try verify(token)
        } catch {
            logger.debug("refused join", metadata: ["reason": "\(error)"])
            return .refused(RelayRefusal(error))
        }
        if let allowed = configuration.allowedMatches, !allowed.contains(token.match) {
            return .refused(.wrongMatch)
        }
        guard token.participant == participant else { return .refused(.participantMismatch) }
        return .admitted(token)
    }

    /// Checks `token` against the secret, and against the previous one while it is being retired.
    private func verify(_ token: RelayToken) throws(RelayTokenError) {
        let now = configuration.unixTime()
        do {
            try token.verify(secret: configuration.secret, now: now, audience: configuration.audience)
        } catch .badSignature {
            guard let previous = configuration.previousSecret else { throw .badSignature }
            try token.verify(secret: previous, now: now, audience: configuration.audience)
        }
    }

    /// Whether refusing `participant` for `reason` now is news: not the same refusal of its other
    /// transports or its retries within the window. Refusals without a name are each news.
    mutating func isNewRefusal(of participant: String?, reason: RelayRefusal) -> Bool {
        guard let participant else { return true }
        let key = "\(reason.rawValue) \(participant)"
        if let last = lastRefusals[key], latestNow &- last < Self.refusalWindow { return false }
        // Bounded: a flood of names is forgotten wholesale rather than kept.
        if lastRefusals.count >= 4_096 { lastRefusals.removeAll(keepingCapacity: true) }
        lastRefusals[key] = latestNow
        return true
    }

    mutating func forgetOldRefusals(now: UInt64) {
        if !lastRefusals.isEmpty { lastRefusals = lastRefusals.filter { now &- $0.value < Self.refusalWindow } }
    }

    /// A TCP connection opened from `peer`: false when its address holds as many unjoined
    /// connections as it may.
    mutating func connectionOpened(_ connection: RelayConnectionID, from peer: SocketAddress?, now: UInt64) -> Bool {
        let host = peer?.ipAddress ?? "?"
        guard addressLimits.admitConnection(from: host) else { return false }
        connectionPeers[connection] = "tcp " + (peer.map(Self.describe) ?? "?")
        connectionHosts[connection] = host
        unjoinedConnections[connection] = now
        return true
    }

    /// Whether a join from `source` is within its address's rate.
    mutating func admitAttempt(from source: RelaySource, now: UInt64) -> Bool {
        let host =
            switch source {
            case .udp(let address): address.ipAddress ?? "?"
            case .tcp(let connection): connectionHosts[connection] ?? "?"
            }
        return addressLimits.admitAttempt(from: host, now: now)
    }

    func isUnjoined(_ connection: RelayConnectionID) -> Bool { unjoinedConnections[connection] != nil }

    /// Whether `source` can still be answered: UDP always, a TCP connection until it closed.
    func isOpen(_ source: RelaySource) -> Bool {
        guard case .tcp(let connection) = source else { return true }
        return connectionPeers[connection] != nil
    }

    /// The connection joined, closed or was closed: it stops counting as unjoined.
    mutating func forgetUnjoined(_ connection: RelayConnectionID) {
        guard unjoinedConnections.removeValue(forKey: connection) != nil else { return }
        addressLimits.release(from: connectionHosts[connection] ?? "?")
    }

    /// Forgets all of a TCP connection that closed.
    mutating func connectionClosed(_ connection: RelayConnectionID) {
        connectionPeers[connection] = nil
        forgetUnjoined(connection)
        connectionHosts[connection] = nil
    }

    /// The relay shut down: no connection is named any more.
    mutating func forgetConnections() {
        connectionPeers = [:]
    }

    /// What the per-address limits refused since the last sweep, by address.
    mutating func sweepAddressLimits(now: UInt64) -> [(host: String, refusals: AddressLimits.Refusals)] {
        addressLimits.sweep(now: now)
    }

    /// A source as log lines name it: "udp 192.0.2.7:5000", "tcp 192.0.2.7:5001".
    func describe(_ source: RelaySource) -> String {
        switch source {
        case .udp(let address): "udp " + Self.describe(address)
        case .tcp(let connection): connectionPeers[connection] ?? "tcp ?"
        }
    }

    private static func describe(_ address: SocketAddress) -> String {
        guard let host = address.ipAddress, let port = address.port else { return "\(address)" }
        return address.protocol == .inet6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
