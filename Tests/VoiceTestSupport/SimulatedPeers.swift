import Synchronization
import VoiceCore
import VoiceEngine
import VoiceTransport

/// A virtual-time world for engines: an app signalling channel between participants (reliable,
/// in order, delivered on the next step), an app real-time channel, and a UDP-like network whose
/// addresses can be blocked, all driven by one clock.
public final class SimulatedWorld: @unchecked Sendable {
    // One thread drives the world (the test); the engines' clients only append to these queues.
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
        public var due: MediaTime
    }

    public let clock = ManualClock()
    private let pending = Mutex<(signalling: [Delivery], datagrams: [Datagram])>(([], []))
    /// Addresses whose datagrams (to or from them) are lost.
    public let blocked = Mutex<Set<PeerAddress>>([])
    /// Participants whose app real-time channel drops everything.
    public let realTimeBlocked = Mutex<Set<ParticipantID>>([])
    public let networkDelay: MediaTime = MediaTime.milliseconds(10)
    public var receivers: [ParticipantID: (Delivery) -> Void] = [:]
    public var networks: [PeerAddress: SimulatedNetwork] = [:]
    /// Every datagram that crossed the network, for tests that replay or forge them.
    public let captured = Mutex<[Datagram]>([])
    /// Every signalling and real-time message the apps carried.
    public let capturedSignalling = Mutex<[Delivery]>([])

    public init() {}

    public func post(_ delivery: Delivery) {
        if delivery.realTime, realTimeBlocked.withLock({ $0.contains(delivery.from) || $0.contains(delivery.to) }) {
            return
        }
        capturedSignalling.withLock { $0.append(delivery) }
        pending.withLock { $0.signalling.append(delivery) }
    }

    public func post(_ datagram: Datagram) {
        let isBlocked = blocked.withLock { $0.contains(datagram.from) || $0.contains(datagram.to) }
        guard !isBlocked else { return }
        captured.withLock { $0.append(datagram) }
        pending.withLock { $0.datagrams.append(datagram) }
    }

    /// Delivers everything due by now.
    public func deliver() {
        let now = clock.now
        let (signalling, datagrams) = pending.withLock { queues in
            let signalling = queues.signalling
            queues.signalling = []
            let due = queues.datagrams.filter { $0.due <= now }
            queues.datagrams.removeAll { $0.due <= now }
            return (signalling, due)
        }
        for delivery in signalling { receivers[delivery.to]?(delivery) }
        for datagram in datagrams {
            networks[datagram.to]?.engine?.receiveDatagram(datagram.bytes, from: datagram.from)
        }
    }
}

/// A participant's app in the simulated world: carries signalling and (optionally) real-time data.
public final class SimulatedClient: VoiceChatClient {
    public let participantID: ParticipantID
    public let offersRealTimeData: Bool
    private let world: SimulatedWorld

    public init(_ participant: ParticipantID, world: SimulatedWorld, offersRealTime: Bool) {
        participantID = participant
        offersRealTimeData = offersRealTime
        self.world = world
    }

    public func send(_ data: [UInt8], to participant: ParticipantID) {
        world.post(.init(bytes: data, from: participantID, to: participant, realTime: false))
    }

    public func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {
        world.post(.init(bytes: data, from: participantID, to: participant, realTime: true))
    }
}

/// One participant's UDP socket in the simulated world.
public final class SimulatedNetwork: DatagramNetwork, @unchecked Sendable {
    public let address: PeerAddress
    private let world: SimulatedWorld
    weak var engine: VoiceEngine?

    public init(address: PeerAddress, world: SimulatedWorld) {
        self.address = address
        self.world = world
    }

    public var localCandidates: [PeerAddress] { [address] }

    public func send(_ datagram: UnsafeRawBufferPointer, to address: PeerAddress) {
        world.post(
            .init(bytes: Array(datagram), from: self.address, to: address, due: world.clock.now + world.networkDelay))
    }
}
