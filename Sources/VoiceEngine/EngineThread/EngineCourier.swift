import Synchronization
import VoiceCore
import VoiceWire

/// Sends what the engine decided to send, so that the engine thread never waits on a socket, an
/// event loop or the app: it queues datagrams and items and bumps a counter, and the courier's
/// thread does the rest. Control calls, which may wait, deliver what they queued themselves
/// before they return, as does everything in virtual time (where there is no engine thread).
///
/// Whoever delivers takes the queues in order, one at a time. A thread that finds another
/// delivering leaves its work to it: the one delivering looks again before it stops. So a client
/// that calls straight back into the engine from `send` neither deadlocks nor strands anything.
final class EngineCourier: Sendable {
    let datagrams: DatagramQueue<DatagramDestination>
    private let network: (any DatagramNetwork)?
    private let posted = Mutex<[OutgoingItem]>([])
    private let delivering = Mutex<[OutgoingItem]>([])
    private let requested = Atomic<Bool>(false)
    private let wake = WakeCounter()
    private let thread = Mutex<AudioThread?>(nil)
    private let running = Atomic<Bool>(false)

    /// Below the engine thread's (60): the courier is on every packet's way out, and a time-sharing
    /// thread on a busy machine wakes milliseconds late; it never keeps the engine thread waiting.
    static let realTimePriority: Int32 = 55

    /// Datagrams the queue holds: the engine thread's two frames for every peer of a large match.
    static let datagramCapacity = 512

    init(network: (any DatagramNetwork)?, slotBytes: Int) {
        self.network = network
        datagrams = DatagramQueue(capacity: Self.datagramCapacity, slotBytes: slotBytes)
        posted.withLock { $0.reserveCapacity(256) }
        delivering.withLock { $0.reserveCapacity(256) }
    }

    /// Takes a turn's items, from whoever has the engine's state, so items arrive in the order decided.
    /// Returns whether the turn queued anything at all.
    func post(_ outbox: inout EngineOutbox) -> Bool {
        posted.withLock { queue in outbox.handOver(to: &queue) }
    }

    /// Has the courier's thread deliver what was posted: for the engine thread, which must not.
    func wakeThread() { wake.bump() }

    /// Delivers everything posted, on this thread, unless another is already at it.
    func deliver() {
        requested.store(true, ordering: .sequentiallyConsistent)
        while requested.load(ordering: .sequentiallyConsistent) {
            let delivered: Void? = delivering.withLockIfAvailable { working in
                requested.store(false, ordering: .sequentiallyConsistent)
                posted.withLock { swap(&$0, &working) }
                for item in working { send(item) }
                working.removeAll(keepingCapacity: true)
                datagrams.drain { bytes, destination in send(bytes, to: destination) }
            }
            if delivered == nil { return }
        }
    }

    /// Whether the courier's thread runs: then the thread that ticks (the engine's, or the app's after
    /// `startDelivering()`) opens what the inbox holds and leaves the sending to the courier.
    var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Starts the thread that delivers for the engine thread.
    func start() throws(AudioThreadError) {
        try thread.withLock { thread throws(AudioThreadError) in
            guard thread == nil else { return }
            thread = try AudioThread(
                name: "voice-courier", scheduling: .realTime(priority: Self.realTimePriority)
            ) { [self] thread in
                while !thread.shouldStop {
                    let seen = wake.value
                    deliver()
                    wake.wait(after: seen, until: MediaTime.monotonicNow() + MediaTime.milliseconds(100))
                }
            }
            running.store(true, ordering: .releasing)
        }
    }

    /// Stops the thread and delivers what is left.
    func stop() {
        let stopping = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        running.store(false, ordering: .releasing)
        if let stopping {
            stopping.requestStop()
            wake.bump()
            stopping.join()
        }
        deliver()
    }

    private func send(_ item: OutgoingItem) {
        switch item {
        case .signalling(let message, let participant, let client): client.send(message.encoded(), to: participant)
        case .relayInterest(let channels, let muted, let ranges, let names, let link):
            link.update(channels: channels, muted: muted, hearingRanges: ranges, channelNames: names)
        case .relayPosition(let position, let link): link.setPosition(position)
        case .callEvent(let event, let sink): sink.deliver(event)
        case .matchEvent(let event, let sink): sink.deliver(event)
        }
    }

    private func send(_ datagram: UnsafeRawBufferPointer, to destination: DatagramDestination) {
        switch destination {
        case .direct(let address): network?.send(datagram, to: address)
        case .appCarried(let participant, let client): client.sendRealTime(Array(datagram), to: participant)
        case .relay(let kind, let link): link.send(Array(datagram), via: kind)
        }
    }
}
