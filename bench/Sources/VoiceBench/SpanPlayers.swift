import Foundation
import NIOCore
import NIOPosix
import Synchronization
import VoiceCore
import VoiceRelayClient
import VoiceWire

/// Players of the span benchmark: one match on a positional channel, each player a real
/// `RelayClient` on a loopback address of its own that tells the relay where it stands as it walks
/// (`GroupWalk`, the proximity benchmark's world). Talkers send a datagram every 20 ms carrying
/// their number, the tick and the time sent; at each tick the benchmark notes which listeners
/// stand in range of each talker, and each listener notes what it heard and how late.
///
/// Thread contract: the clients' callbacks run on their event loops; the figures are behind locks
/// held for a few assignments; the walk and the talking run on one event loop.
final class SpanPlayers: Sendable {
    static let match = "world"
    static let channel: ChannelNumber = 1
    static let interval: Duration = .milliseconds(20)

    let count: Int
    let range: Float
    private let group: MultiThreadedEventLoopGroup
    private let clients = Mutex<[Int: RelayClient]>([:])
    private let joinedAt = Mutex<[Int: UInt64]>([:])
    private let talkers: Set<Int>
    /// Where each player last told the relay it stands, where it stood before that, and when it
    /// last told (the world changes only at a report).
    private struct Reported {
        var current: [VoicePosition]
        var previous: [VoicePosition]
        var at: UInt64
    }

    private let reported: Mutex<Reported>
    private let walk: Mutex<GroupWalk>
    private let tick = Atomic<Int>(0)
    /// Datagrams the talkers sent, all told.
    private let sentCount = Atomic<Int>(0)

    /// What one window measured.
    struct Window {
        var firstTick = 0
        var ticks = 0
        /// By listener, the (talker, tick) pairs it was to hear: in range as of sending and as of
        /// `settle` before, both by the positions reported.
        var expected: [Int: Set<Int64>] = [:]
        /// By listener, the (talker, tick) pairs it heard, each with its delay in nanoseconds.
        var heard: [Int: [Int64: UInt64]] = [:]
    }

    private let window = Mutex<Window?>(nil)
    /// How long a position must have stood for a listener to count as in range: the time a report
    /// takes to reach the relays, so that what is measured is the relays, not the race between a
    /// player's report and another's voice.
    static let settle: UInt64 = 50_000_000

    init(count: Int, talkers: Set<Int>, walk: GroupWalk, range: Float, threads: Int) {
        self.count = count
        self.talkers = talkers
        self.range = range
        let positions = walk.positions
        self.walk = Mutex(walk)
        reported = Mutex(Reported(current: positions, previous: positions, at: 0))
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    }

    /// Starts joining `player` through `relays` (the first tried first) with a token of `secret`.
    func join(_ player: Int, relays: [Int], secret: RelaySecret) async throws {
        let token = try RelayToken.sign(
            match: Self.match, participant: "p\(player)", expiry: UInt64.max / 2, secret: secret)
        var configuration = RelayClientConfiguration(
            host: "127.0.0.1", port: relays[0], transport: .udp, token: token.text, participant: "p\(player)",
            channels: [Self.channel])
        configuration.otherRelays = relays.dropFirst().map { "127.0.0.1:\($0)" }
        configuration.localHost = ClusterPlayers.loopbackHost(of: player)
        configuration.hearingRanges = [Self.channel: range]
        let client = try await RelayClient.connect(
            configuration, eventLoopGroup: group,
            onDatagram: { [self] datagram in received(datagram, by: player) },
            onEvent: { [self] event in
                if case .joined = event {
                    joinedAt.withLock { if $0[player] == nil { $0[player] = NIODeadline.now().uptimeNanoseconds } }
                }
            })
        client.setPosition(reported.withLock { $0.current[player] })
        clients.withLock { $0[player] = client }
    }

    var joined: Int { joinedAt.withLock { $0.count } }

    /// Walks the world, every player telling its relay where it stands `hz` times a second, and
    /// talkers talking every 20 ms; runs until the tasks are cancelled.
    func start(positionHz: Int) -> [RepeatedTask] {
        let loop = group.next()
        let step = TimeAmount.nanoseconds(1_000_000_000 / Int64(positionHz))
        let walking = loop.scheduleRepeatedTask(initialDelay: step, delay: step) { [self] _ in
            let positions = walk.withLock { walk in
                walk.advance(seconds: 1 / Float(positionHz))
                return walk.positions
            }
            reported.withLock {
                $0.previous = $0.current
                $0.current = positions
                $0.at = NIODeadline.now().uptimeNanoseconds
            }
            for (player, client) in clients.withLock({ $0 }) { client.setPosition(positions[player]) }
        }
        let period = TimeAmount.milliseconds(20)
        let talking = loop.scheduleRepeatedTask(initialDelay: period, delay: period) { [self] _ in
            talk(tick: tick.add(1, ordering: .relaxed).newValue)
        }
        return [walking, talking]
    }

    private func talk(tick: Int) {
        let now = NIODeadline.now().uptimeNanoseconds
        let speaking = clients.withLock { clients in
            talkers.compactMap { player in clients[player].map { (player, $0) } }
        }
        var sent: [Int] = []
        for (player, client) in speaking where client.send(datagram(from: player, tick: tick, at: now)) {
            sent.append(player)
        }
        sentCount.add(sent.count, ordering: .relaxed)
        let (current, settled) = reported.withLock { reported in
            (reported.current, now &- reported.at < Self.settle ? reported.previous : reported.current)
        }
        let rangeSquared = range * range
        window.withLock { window in
            guard var measuring = window, tick >= measuring.firstTick, tick < measuring.firstTick + measuring.ticks
            else { return }
            window = nil
            for talker in sent {
                let key = Self.key(talker: talker, tick: tick)
                for listener in 0..<count where listener != talker {
                    if current[talker].distanceSquared(to: current[listener]) <= rangeSquared,
                        settled[talker].distanceSquared(to: settled[listener]) <= rangeSquared
                    {
                        measuring.expected[listener, default: []].insert(key)
                    }
                }
            }
            window = measuring
        }
    }

    static func key(talker: Int, tick: Int) -> Int64 { Int64(talker) << 32 | Int64(tick) }

    private func datagram(from player: Int, tick: Int, at now: UInt64) -> [UInt8] {
        // A voice frame's size at the defaults: what the relays forward.
        var bytes = [UInt8](repeating: 0, count: SealedEnvelopeHeader.envelopeBytes(plaintextBytes: 80))
        bytes.withUnsafeMutableBytes { raw in
            try? SealedEnvelopeHeader(
                content: .voice, channel: Self.channel, sender: ParticipantID("p\(player)").mediaID,
                destination: SealedEnvelopeHeader.everyone, epoch: 0, counter: UInt64(tick)
            ).write(into: raw)
            let offset = SealedEnvelopeHeader.encodedBytes
            raw.storeBytes(of: UInt32(player).bigEndian, toByteOffset: offset, as: UInt32.self)
            raw.storeBytes(of: UInt32(tick).bigEndian, toByteOffset: offset + 4, as: UInt32.self)
            raw.storeBytes(of: now.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
        }
        return bytes
    }

    private func received(_ datagram: [UInt8], by player: Int) {
        let offset = SealedEnvelopeHeader.encodedBytes
        guard datagram.count >= offset + 16 else { return }
        let now = NIODeadline.now().uptimeNanoseconds
        let (talker, tick, sentAt) = datagram.withUnsafeBytes { raw in
            (
                Int(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))),
                Int(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            )
        }
        window.withLock { window in
            guard window != nil, tick >= window!.firstTick, tick < window!.firstTick + window!.ticks else { return }
            window!.heard[player, default: [:]][Self.key(talker: talker, tick: tick)] = now &- sentAt
        }
    }

    /// Datagrams the talkers sent so far.
    var sent: Int { sentCount.load(ordering: .relaxed) }

    /// Whether every tick of the window was sent.
    var windowSent: Bool {
        window.withLock { $0.map { tick.load(ordering: .relaxed) >= $0.firstTick + $0.ticks } ?? true }
    }

    /// Starts measuring the next `seconds` of ticks.
    func openWindow(seconds: Double) {
        let ticks = Int(seconds * 50)
        window.withLock { $0 = Window(firstTick: tick.load(ordering: .relaxed) + 1, ticks: ticks) }
    }

    /// What the window measured, once its ticks and the datagrams still on their way are over.
    func closeWindow() -> Window? {
        window.withLock { current in
            defer { current = nil }
            return current
        }
    }

    func shutdown() async { await ClusterPlayers.close(clients, group: group) }
}
