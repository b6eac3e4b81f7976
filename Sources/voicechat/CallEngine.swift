import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceTransport

#if canImport(Glibc)
    import Glibc
#endif

/// The local side of a call before it is placed or answered: audio opened, a UDP socket bound, the
/// engine built (but not started, so no audio is consumed before the call is set up).
struct CallEngine {
    let engine: VoiceEngine
    let network: UDPNetwork

    /// Opens the devices first (a wrong device name fails before anything touches the network), then
    /// binds UDP on every interface at `udpPort` (0: any free port), offering the interfaces'
    /// addresses or those of `--advertise`. `audio` replaces the options' devices (`listen --echo`'s
    /// loop, `echo-test`'s metered ones).
    static func open(
        options: CallOptions, participant: ParticipantID, host: String = "0.0.0.0", udpPort: Int,
        audio: (input: any AudioInput, output: any AudioOutput)? = nil
    ) async throws(CommandFailure) -> CallEngine {
        let candidates: [PeerAddress]?
        do {
            candidates = try options.advertisedCandidates()
        } catch {
            throw CommandFailure(error.message)
        }
        let (input, output): (any AudioInput, any AudioOutput)
        if let audio {
            (input, output) = audio
        } else {
            (input, output) = try options.openAudio()
        }
        return try await open(
            participant: participant, configuration: options.engineConfiguration(), input: input, output: output,
            host: host, udpPort: udpPort, candidates: candidates)
    }

    /// Binds UDP at `host` and `udpPort` (0: any free port) and builds the engine on `input` and
    /// `output`; `candidates` replace the addresses offered to peers.
    static func open(
        participant: ParticipantID, configuration: EngineConfiguration, input: any AudioInput,
        output: any AudioOutput, host: String, udpPort: Int, candidates: [PeerAddress]? = nil
    ) async throws(CommandFailure) -> CallEngine {
        let udp: UDPNetwork
        do {
            udp = try await UDPNetwork.bind(host: host, port: udpPort, candidates: candidates)
        } catch {
            if case .bindFailed(_, _, _, let errno) = error, errno == EADDRINUSE {
                throw CommandFailure(
                    "UDP port \(udpPort) is already in use; stop the program using it or pick another --port")
            }
            throw CommandFailure(error.description)
        }
        let engine: VoiceEngine
        do {
            engine = try VoiceEngine(
                participant: participant, configuration: configuration, input: input, output: output, network: udp,
                relays: RelayLinks())
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
