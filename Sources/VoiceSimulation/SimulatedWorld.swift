import Synchronization
import VoiceCore
import VoiceEngine

/// Real engines in one process, in virtual time: an app's signalling channel between participants
/// (reliable, in order, handed over at the next `deliver`), an app's real-time channel, and a
/// UDP-like network whose addresses can be blocked, all on one clock. Tests and benchmarks share it.
///
/// Every socket's incoming datagrams cross one `SimulatedNetwork` (the same model the quality
/// benchmark and the impairment proxy use), `conditions` apart, so datagrams wait in its
/// preallocated pool and are handed over in reused buffers: once the buffers have grown to the
/// traffic, carrying a datagram allocates nothing, and a benchmark counting an engine's
/// allocations counts only the engine's.
///
/// One thread drives the world (`deliver`); the engines' clients and sockets only queue.
public final class SimulatedWorld: @unchecked Sendable {
    public struct Delivery: Sendable {
        public var bytes: [UInt8]
        public var from: ParticipantID
        public var to: ParticipantID
        public var realTime: Bool
    }

    public struct Datagram: Sendable {
        public var bytes: [UInt8]
        public var from: PeerAddress
        public var to: PeerAddress
    }

    public let clock: ManualClock
    /// What every datagram meets on its way (by default 10 ms of delay, nothing lost).
    public let conditions: NetworkConditions
    /// Addresses whose datagrams (to or from them) are lost.
    public let blocked = Mutex<Set<PeerAddress>>([])
    /// Participants whose app real-time channel drops everything.
    public let realTimeBlocked = Mutex<Set<ParticipantID>>([])
    /// Who receives what the apps carry, by participant.
    public var receivers: [ParticipantID: (Delivery) -> Void] = [:]
    /// Every datagram that crossed the network, for tests that replay or forge them (if `captures`).
    public let captured = Mutex<[Datagram]>([])
    /// Every signalling and real-time message the apps carried.
    public let capturedSignalling = Mutex<[Delivery]>([])

    private let captures: Bool
    private let seed: UInt64
    private let signalling = Mutex<[Delivery]>([])
    /// Guards `paths`: its networks are classes that one thread at a time may use.
    private let pathsLock = Mutex(())
    private var paths = Paths()
    /// Only the driving thread touches these.
    private var handingOver: [Delivery] = []
    private var batch: [[UInt8]] = []
    private var batchSenders: [PeerAddress] = []

    /// The sockets, and the path into each: a datagram carries its sender's index as its tag.
    private struct Paths {
        var sockets: [SimulatedSocket] = []
        var indices: [PeerAddress: Int] = [:]
        var networks: [SimulatedNetwork] = []
    }

    /// Datagrams one socket's path holds at most.
    static let pathCapacity = 1_024

    /// - Parameters:
    ///   - captures: whether to keep every datagram in `captured` (which allocates per datagram).
    public init(
        clock: ManualClock = ManualClock(),
        conditions: NetworkConditions = NetworkConditions(baseDelayMilliseconds: 10), captures: Bool = true,
        seed: UInt64 = 1
    ) {
        self.clock = clock
        self.conditions = conditions
        self.captures = captures
        self.seed = seed
    }

    /// Makes `socket` reachable at its address.
    func attach(_ socket: SimulatedSocket) {
        pathsLock.withLock { _ in
            paths.indices[socket.address] = paths.sockets.count
            paths.sockets.append(socket)
            paths.networks.append(
                SimulatedNetwork(
                    conditions: conditions, seed: seed &+ UInt64(paths.networks.count), capacity: Self.pathCapacity))
        }
    }

    /// Queues what an app carries, for the next `deliver`.
    public func post(_ delivery: Delivery) {
        if delivery.realTime, realTimeBlocked.withLock({ $0.contains(delivery.from) || $0.contains(delivery.to) }) {
            return
        }
        capturedSignalling.withLock { $0.append(delivery) }
        signalling.withLock { $0.append(delivery) }
    }

    /// Sends a datagram from `from` to `to` now; lost if either is blocked or nobody is there.
    public func send(_ datagram: UnsafeRawBufferPointer, from: PeerAddress, to: PeerAddress) {
        let isBlocked = blocked.withLock { $0.contains(from) || $0.contains(to) }
        guard !isBlocked else { return }
        if captures { captured.withLock { $0.append(Datagram(bytes: Array(datagram), from: from, to: to)) } }
        let now = clock.now
        pathsLock.withLock { _ in
            guard let sender = paths.indices[from], let receiver = paths.indices[to] else { return }
            paths.networks[receiver].send(datagram, at: now, tag: sender)
        }
    }

    /// Hands over everything due by now: what the apps carried, then each socket's datagrams to its
    /// engine together, in the order they arrive, through `around(engine, handOver)` (to time or
    /// count them).
    public func deliver(_ around: (VoiceEngine, () -> Void) -> Void = { $1() }) {
        let now = clock.now
        signalling.withLock { swap(&$0, &handingOver) }
        for delivery in handingOver { receivers[delivery.to]?(delivery) }
        handingOver.removeAll(keepingCapacity: true)
        let count = pathsLock.withLock { _ in paths.sockets.count }
        for index in 0..<count {
            // Taken out under the lock, handed over outside it: an engine in virtual time answers
            // at once, through this world.
            let (engine, taken) = pathsLock.withLock { _ in
                var taken = 0
                paths.networks[index].deliver(until: now) { bytes, _, sender in
                    if taken == batch.count { batch.append([]) }
                    batch[taken].removeAll(keepingCapacity: true)
                    batch[taken].append(contentsOf: bytes)
                    if taken == batchSenders.count {
                        batchSenders.append(paths.sockets[sender].address)
                    } else {
                        batchSenders[taken] = paths.sockets[sender].address
                    }
                    taken += 1
                }
                return (paths.sockets[index].engine, taken)
            }
            guard let engine, taken > 0 else { continue }
            around(engine) {
                for slot in 0..<taken { engine.receiveDatagram(batch[slot], from: batchSenders[slot]) }
            }
        }
    }
}
