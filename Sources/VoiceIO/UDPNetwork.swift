import Synchronization
import VoiceCore
import VoiceEngine
import VoiceTransport

/// The engine's direct path over a real UDP socket: one socket for every peer, offered to them
/// through the local interface addresses it can be reached at.
public final class UDPNetwork: DatagramNetwork {
    /// Holds the engine weakly: the engine owns the network, not the other way round.
    private final class Receiver: Sendable {
        let engine = Mutex<WeakEngine>(WeakEngine())
    }

    private struct WeakEngine {
        weak var engine: VoiceEngine?
    }

    public let endpoint: UDPEndpoint
    public let localCandidates: [PeerAddress]
    private let receiver: Receiver

    private init(endpoint: UDPEndpoint, localCandidates: [PeerAddress], receiver: Receiver) {
        self.endpoint = endpoint
        self.localCandidates = localCandidates
        self.receiver = receiver
    }

    /// Binds a UDP socket on `host`:`port` (port 0: any free one).
    ///
    /// - Parameter candidates: the addresses to offer peers; by default every interface address
    ///   of the socket's family at the bound port, loopback last (it lets two programs on one host
    ///   meet without leaving it; a peer elsewhere finds nothing there and uses the others).
    public static func bind(host: String = "0.0.0.0", port: Int = 0, candidates: [PeerAddress]? = nil)
        async throws(TransportError) -> UDPNetwork
    {
        let receiver = Receiver()
        let endpoint = try await UDPEndpoint.bind(host: host, port: port) { datagram, address in
            receiver.engine.withLock { $0.engine }?.receiveDatagram(datagram, from: address)
        }
        let offered: [PeerAddress]
        if let candidates {
            offered = candidates
        } else if host == "0.0.0.0" || host == "::" {
            offered = CandidateGathering.localCandidates(port: endpoint.localPort, includeLoopback: true)
                .filter { $0.family == endpoint.family }
        } else {
            offered = [try PeerAddress(host: host, port: endpoint.localPort)]
        }
        return UDPNetwork(endpoint: endpoint, localCandidates: offered, receiver: receiver)
    }

    /// Delivers what the socket receives to `engine`.
    public func deliver(to engine: VoiceEngine) {
        receiver.engine.withLock { $0.engine = engine }
    }

    public func send(_ datagram: UnsafeRawBufferPointer, to address: PeerAddress) {
        endpoint.send(datagram, to: address)
    }

    public func close() async {
        await endpoint.close()
    }
}
