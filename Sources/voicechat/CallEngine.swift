import VoiceCore
import VoiceEngine
import VoiceTransport

/// The local side of a call before it is placed or answered: audio opened, a UDP socket bound, the
/// engine built (but not started, so no audio is consumed before the call is set up).
struct CallEngine {
    let engine: VoiceEngine
    let network: UDPNetwork

    /// Opens the devices first (a wrong device name fails before anything touches the network), then
    /// binds UDP on every interface at `udpPort` (0: any free port).
    static func open(options: CallOptions, participant: ParticipantID, udpPort: Int) async throws(CommandFailure)
        -> CallEngine
    {
        let (input, output) = try options.openAudio()
        let udp: UDPNetwork
        do {
            udp = try await UDPNetwork.bind(host: "0.0.0.0", port: udpPort)
        } catch {
            if case .bindFailed(_, _, let reason) = error, reason.contains("in use") {
                throw CommandFailure(
                    "UDP port \(udpPort) is already in use; stop the program using it or pick another --port")
            }
            throw CommandFailure(error.description)
        }
        let engine: VoiceEngine
        do {
            engine = try VoiceEngine(
                participant: participant, configuration: options.engineConfiguration(), input: input, output: output,
                network: CandidateNetwork(udp))
        } catch {
            await udp.close()
            throw CommandFailure(error.description)
        }
        udp.deliver(to: engine)
        return CallEngine(engine: engine, network: udp)
    }

    func start() throws(CommandFailure) {
        do {
            try engine.start()
        } catch {
            throw CommandFailure(error.description)
        }
    }

    func shutDown() async {
        engine.shutDown()
        await network.close()
    }
}

/// The addresses a UDP socket bound to every IPv4 interface offers its peer.
///
/// Only IPv4 ones: the socket cannot send to IPv6 addresses, and a failed send to one closes it (the
/// peer's IPv6 candidates are then not probed either, as no local candidate has that family). Its
/// loopback address is offered too, so two programs on one host find the direct path without leaving
/// it; a peer on another host finds nothing there and uses the others.
final class CandidateNetwork: DatagramNetwork {
    private let udp: UDPNetwork
    let localCandidates: [PeerAddress]

    init(_ udp: UDPNetwork) {
        self.udp = udp
        let port = udp.endpoint.localPort
        let interfaces = CandidateGathering.localCandidates(port: port, includeLoopback: true)
        localCandidates = interfaces.filter { $0.family == .ipv4 }
    }

    func send(_ datagram: [UInt8], to address: PeerAddress) {
        udp.send(datagram, to: address)
    }
}
