import Foundation
import NIOCore
import NIOPosix
import Synchronization
import VoiceCore
import VoiceRelayClient
import VoiceTransport
import VoiceWire

/// Players of the cluster benchmark: each a real `RelayClient` (the client the engine uses, which
/// follows redirects and moves and tries the next relay when one goes), on a loopback address of
/// its own, talking every `interval` in a match of `playersPerMatch`. A datagram carries a sealed
/// envelope's clear header (the relay forwards by it), the sender's number and the tick it was
/// sent in; every listener notes, per talker, the longest silence and the ticks it heard within
/// the measuring window.
///
/// Thread contract: the clients' callbacks run on their event loops; each player's figures are
/// behind its own lock, held for a few assignments.
final class ClusterPlayers: Sendable {
    struct Figures {
        var joinedAt: UInt64?
        var lastRefusal: RelayRefusal?
        /// Per talker of the match (by its number): the last arrival, the longest silence within
        /// the window, and which of the window's ticks arrived.
        var lastArrival: [Int: UInt64] = [:]
        var longestSilence: [Int: UInt64] = [:]
        var heard: [Int: [Bool]] = [:]
        /// The window's ticks this player sent.
        var sent: [Bool] = []
    }

    struct Window: Sendable {
        var firstTick: Int
        var ticks: Int
        var opened: UInt64
    }

    let playersPerMatch: Int
    let interval: Duration
    private let group: MultiThreadedEventLoopGroup
    private let clients = Mutex<[Int: RelayClient]>([:])
    /// One player's figures, behind its own lock.
    private final class Player: Sendable {
        let figures = Mutex(Figures())
        let startedAt = Atomic<UInt64>(0)
    }

    private let all: [Player]
    private let tick = Atomic<Int>(0)
    private let window = Mutex<Window?>(nil)

    init(count: Int, playersPerMatch: Int, interval: Duration, threads: Int) {
        self.playersPerMatch = playersPerMatch
        self.interval = interval
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        all = (0..<count).map { _ in Player() }
    }

    static func match(of player: Int, playersPerMatch: Int) -> String { "m\(player / playersPerMatch)" }

    func match(of player: Int) -> String { Self.match(of: player, playersPerMatch: playersPerMatch) }

    /// Starts joining `player` through `relays` (the first tried first) with a token of `secret`.
    func join(_ player: Int, relays: [Int], secret: RelaySecret) async throws {
        let token = try RelayToken.sign(
            match: match(of: player), participant: "p\(player)", expiry: UInt64.max / 2, secret: secret)
        var configuration = RelayClientConfiguration(
            host: "127.0.0.1", port: relays[0], transport: .udp, token: token.text, participant: "p\(player)",
            channels: [1])
        configuration.otherRelays = relays.dropFirst().map { "127.0.0.1:\($0)" }
        configuration.localHost = Self.loopbackHost(of: player)
        all[player].startedAt.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
        let client = try await RelayClient.connect(
            configuration, eventLoopGroup: group,
            onDatagram: { [self] datagram in received(datagram, by: player) },
            onEvent: { [self] event in
                switch event {
                case .joined:
                    all[player].figures.withLock {
                        if $0.joinedAt == nil { $0.joinedAt = NIODeadline.now().uptimeNanoseconds }
                    }
                case .refused(let reason): all[player].figures.withLock { $0.lastRefusal = reason }
                default: break
                }
            })
        clients.withLock { $0[player] = client }
    }

    /// An address of its own in 127.0.0.0/8, as players have: a relay limits joins per address.
    static func loopbackHost(of player: Int) -> String {
        "127.\(2 + player / 62_500).\(player / 250 % 250).\(player % 250 + 1)"
    }

    /// Seconds from the start of its join to `.joined`, for the players that joined.
    func joinSeconds(_ players: Range<Int>) -> [Double] {
        players.compactMap { player in
            let start = all[player].startedAt.load(ordering: .relaxed)
            return all[player].figures.withLock { $0.joinedAt }.map { Double($0 &- start) / 1e9 }
        }
    }

    func joined(_ players: Range<Int>) -> Int {
        players.filter { all[$0].figures.withLock { $0.joinedAt != nil } }.count
    }

    func lastRefusal(_ player: Int) -> RelayRefusal? { all[player].figures.withLock { $0.lastRefusal } }

    /// Every `interval`, every joined player sends one datagram; runs until `stop`.
    private var intervalNanoseconds: Int64 {
        interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000
    }

    func talk() -> RepeatedTask {
        let period = TimeAmount.nanoseconds(intervalNanoseconds)
        return group.next().scheduleRepeatedTask(initialDelay: period, delay: period) { [self] _ in
            let now = tick.add(1, ordering: .relaxed).newValue
            let window = self.window.withLock { $0 }
            let talking: [Int: RelayClient] = clients.withLock { $0 }
            for entry in talking {
                let (player, client) = (entry.key, entry.value)
                guard client.send(datagram(from: player, tick: now)) else { continue }
                if let window, now >= window.firstTick, now < window.firstTick + window.ticks {
                    all[player].figures.withLock { $0.sent[now - window.firstTick] = true }
                }
            }
        }
    }

    private func datagram(from player: Int, tick: Int) -> [UInt8] {
        // A voice frame's size at the defaults: what the relays forward.
        var bytes = [UInt8](repeating: 0, count: SealedEnvelopeHeader.envelopeBytes(plaintextBytes: 80))
        bytes.withUnsafeMutableBytes { raw in
            try? SealedEnvelopeHeader(
                content: .voice, channel: 1, sender: ParticipantID("p\(player)").mediaID,
                destination: SealedEnvelopeHeader.everyone, epoch: 0, counter: UInt64(tick)
            ).write(into: raw)
            raw.storeBytes(
                of: UInt32(player).bigEndian, toByteOffset: SealedEnvelopeHeader.encodedBytes, as: UInt32.self)
            raw.storeBytes(
                of: UInt32(tick).bigEndian, toByteOffset: SealedEnvelopeHeader.encodedBytes + 4, as: UInt32.self)
        }
        return bytes
    }

    private func received(_ datagram: [UInt8], by player: Int) {
        guard datagram.count >= SealedEnvelopeHeader.encodedBytes + 8 else { return }
        let (talker, tick) = datagram.withUnsafeBytes { raw in
            (
                Int(
                    UInt32(
                        bigEndian: raw.loadUnaligned(fromByteOffset: SealedEnvelopeHeader.encodedBytes, as: UInt32.self)
                    )),
                Int(
                    UInt32(
                        bigEndian: raw.loadUnaligned(
                            fromByteOffset: SealedEnvelopeHeader.encodedBytes + 4, as: UInt32.self)))
            )
        }
        let now = NIODeadline.now().uptimeNanoseconds
        let window = self.window.withLock { $0 }
        all[player].figures.withLock { figures in
            if let window, now >= window.opened {
                let last = max(figures.lastArrival[talker] ?? window.opened, window.opened)
                figures.longestSilence[talker] = max(figures.longestSilence[talker] ?? 0, now &- last)
                let index = tick - window.firstTick
                if index >= 0, index < window.ticks {
                    figures.heard[talker, default: Array(repeating: false, count: window.ticks)][index] = true
                }
            }
            figures.lastArrival[talker] = now
        }
    }

    /// Starts measuring `seconds` from now: silences and the ticks sent and heard.
    func openWindow(seconds: Double) {
        let ticks = Int(seconds * 1e9 / Double(intervalNanoseconds))
        for player in all {
            player.figures.withLock {
                $0.longestSilence = [:]
                $0.heard = [:]
                $0.sent = Array(repeating: false, count: ticks)
            }
        }
        window.withLock {
            $0 = Window(
                firstTick: tick.load(ordering: .relaxed) + 1, ticks: ticks, opened: NIODeadline.now().uptimeNanoseconds)
        }
    }

    /// What a player heard of its match over the window, once it has ended.
    struct Hearing {
        /// The longest silence from any talker of its match, including up to the window's end.
        var longestSilence: Double
        /// Whether every talker of its match was heard again after `since`.
        var heardEveryoneAfter: Bool
        /// Datagrams the talkers sent in the window that it never received.
        var missed: Int
    }

    func closeWindow(players: [Int], since: UInt64) -> [Int: Hearing] {
        let window = self.window.withLock { current -> Window? in
            defer { current = nil }
            return current
        }
        guard let window else { return [:] }
        let end = window.opened + UInt64(window.ticks) * UInt64(intervalNanoseconds)
        let sent = Dictionary(
            uniqueKeysWithValues: players.map { player in (player, all[player].figures.withLock { $0.sent }) })
        var result: [Int: Hearing] = [:]
        for player in players {
            let first = player / playersPerMatch * playersPerMatch
            let talkers = (first..<first + playersPerMatch).filter { $0 != player }
            result[player] = all[player].figures.withLock { figures in
                var hearing = Hearing(longestSilence: 0, heardEveryoneAfter: true, missed: 0)
                for talker in talkers {
                    let last = max(figures.lastArrival[talker] ?? window.opened, window.opened)
                    let silence = max(figures.longestSilence[talker] ?? 0, end > last ? end - last : 0)
                    hearing.longestSilence = max(hearing.longestSilence, Double(silence) / 1e9)
                    if (figures.lastArrival[talker] ?? 0) <= since { hearing.heardEveryoneAfter = false }
                    let heard = figures.heard[talker] ?? []
                    for (index, wasSent) in (sent[talker] ?? []).enumerated() where wasSent {
                        if index >= heard.count || !heard[index] { hearing.missed += 1 }
                    }
                }
                return hearing
            }
        }
        return result
    }

    /// Closes `players`' clients (they leave their matches).
    func leave(_ players: Range<Int>) async {
        let leaving = clients.withLock { clients in players.compactMap { clients.removeValue(forKey: $0) } }
        for client in leaving { await client.close() }
    }

    func shutdown() async { await Self.close(clients, group: group) }

    /// Closes every client of `clients` (they leave their matches), then `group`.
    static func close(_ clients: borrowing Mutex<[Int: RelayClient]>, group: MultiThreadedEventLoopGroup) async {
        let all = clients.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in all { await client.close() }
        try? await group.shutdownGracefully()
    }
}
