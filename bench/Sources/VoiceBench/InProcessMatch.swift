import Synchronization
import VoiceCore
import VoiceEngine
import VoiceTransport

/// Real `VoiceEngine`s in one match over an in-process transport: signalling and datagrams are
/// queued and handed over at the next step, with nothing lost. Every engine seals and opens its
/// voice as in a real match; only the sockets are simulated, and the clock of all but the first
/// `realTimePlayers`, which run their own engine threads on the real clock.
///
/// One thread drives it (`deliver`); the engines' clients and networks only append to the queues.
final class InProcessMatch: @unchecked Sendable {
    let clock = ManualClock()
    private(set) var players: [Player] = []
    private let signalling = Mutex<[(bytes: [UInt8], from: ParticipantID, to: ParticipantID)]>([])
    private let datagrams = Mutex(DatagramPool())
    /// The datagrams being handed over; only the driving thread touches it.
    private var handingOver: [DatagramPool.Queued] = []
    /// One engine's share of `handingOver`, gathered before it is handed over.
    private var batch: [(bytes: [UInt8], from: PeerAddress)] = []
    private var byAddress: [PeerAddress: VoiceEngine] = [:]
    private var byName: [ParticipantID: Match] = [:]
    /// Every signalling message handed over, in order, for a benchmark to replay.
    private let signallingLog = Mutex<[(bytes: [UInt8], from: ParticipantID, to: ParticipantID)]>([])

    final class Player {
        let name: ParticipantID
        let engine: VoiceEngine
        let match: Match
        let channel: VoiceChannel

        init(name: ParticipantID, engine: VoiceEngine, match: Match, channel: VoiceChannel) {
            self.name = name
            self.engine = engine
            self.match = match
            self.channel = channel
        }
    }

    private final class Client: VoiceChatClient {
        let participantID: ParticipantID
        let world: InProcessMatch

        init(_ participant: ParticipantID, world: InProcessMatch) {
            participantID = participant
            self.world = world
        }

        func send(_ data: [UInt8], to participant: ParticipantID) {
            world.signalling.withLock { $0.append((data, participantID, participant)) }
        }
    }

    private final class Network: DatagramNetwork {
        let address: PeerAddress
        let world: InProcessMatch

        init(address: PeerAddress, world: InProcessMatch) {
            self.address = address
            self.world = world
        }

        var localCandidates: [PeerAddress] { [address] }

        func send(_ datagram: UnsafeRawBufferPointer, to destination: PeerAddress) {
            world.datagrams.withLock { $0.queue(datagram, from: address, to: destination) }
        }
    }

    /// Datagrams in flight, in buffers that are reused once handed over, as a socket's would be:
    /// sending costs the sender no allocation once the pool has grown to the traffic.
    private struct DatagramPool {
        struct Queued {
            var slot: Int
            var from: PeerAddress
            var to: PeerAddress
        }

        var slots: [[UInt8]] = []
        var free: [Int] = []
        var queued: [Queued] = []

        mutating func queue(_ datagram: UnsafeRawBufferPointer, from: PeerAddress, to: PeerAddress) {
            let slot: Int
            if let reused = free.popLast() {
                slot = reused
            } else {
                slot = slots.count
                slots.append([])
                slots[slot].reserveCapacity(1_500)
            }
            slots[slot].removeAll(keepingCapacity: true)
            slots[slot].append(contentsOf: datagram)
            queued.append(Queued(slot: slot, from: from, to: to))
        }
    }

    /// `count` players in match "bench", each with channel "all" started and active. The first
    /// `realTimePlayers` run in real time, their engine threads started, the first of them with
    /// `firstPlayerDevices` if given, the rest without devices.
    init(
        players count: Int, configuration: EngineConfiguration, realTimePlayers: Int = 0,
        firstPlayerDevices: (input: any AudioInput, output: any AudioOutput)? = nil
    ) throws {
        let names = (0..<count).map { "player\($0)" }
        for (index, name) in names.enumerated() {
            let address = try PeerAddress(host: "10.1.\(index / 200).\(index % 200 + 1)", port: 5000)
            let devices = index == 0 && realTimePlayers > 0 ? firstPlayerDevices : nil
            let engine = try VoiceEngine(
                participant: name, configuration: configuration, input: devices?.input, output: devices?.output,
                network: Network(address: address, world: self), clock: index < realTimePlayers ? nil : clock)
            let match = try Match(
                engine: engine, client: Client(name, world: self), matchID: "bench", players: names)
            let channel = try match.voiceChat(named: "all")
            try channel.start()
            try channel.setActive(true)
            byAddress[address] = engine
            byName[name] = match
            players.append(Player(name: name, engine: engine, match: match, channel: channel))
        }
        for player in players.prefix(realTimePlayers) { try player.engine.start() }
    }

    /// The signalling messages handed over so far that `matching` picks.
    func signallingSent(where matching: (_ bytes: [UInt8], _ from: ParticipantID, _ to: ParticipantID) -> Bool)
        -> [[UInt8]]
    {
        signallingLog.withLock { log in log.filter { matching($0.bytes, $0.from, $0.to) }.map(\.bytes) }
    }

    /// Hands over everything queued: signalling to the matches, datagrams to the engines. Each
    /// engine's datagrams are handed over together, in the order they were sent, through
    /// `around(engine, handOver)` (to time or count them): one reading of a thread's CPU clock
    /// costs about a microsecond here, so timing each datagram apart would add tens of
    /// microseconds a frame to the engine timed.
    func deliver(_ around: (VoiceEngine, () -> Void) -> Void = { $1() }) {
        let messages = signalling.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
        signallingLog.withLock { $0.append(contentsOf: messages) }
        for message in messages { byName[message.to]?.received(message.bytes, from: message.from) }
        datagrams.withLock { swap(&$0.queued, &handingOver) }
        for (address, engine) in byAddress {
            batch.removeAll(keepingCapacity: true)
            datagrams.withLock { pool in
                for packet in handingOver where packet.to == address {
                    batch.append((pool.slots[packet.slot], packet.from))
                }
            }
            guard !batch.isEmpty else { continue }
            around(engine) {
                for (bytes, from) in batch { engine.receiveDatagram(bytes, from: from) }
            }
        }
        // Holding the buffers would make the next datagram queued in them copy its buffer.
        batch.removeAll(keepingCapacity: true)
        datagrams.withLock { pool in pool.free.append(contentsOf: handingOver.lazy.map(\.slot)) }
        handingOver.removeAll(keepingCapacity: true)
    }
}
