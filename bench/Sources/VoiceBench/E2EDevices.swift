import ArgumentParser
import Foundation
import VoiceTestHarness

/// The sound server under both players' ALSA devices in `bench/run e2e`, and the PCMs the run
/// opens on it: `e2e_inj` and `e2e_det` for the benchmark's recorder, `e2e_{a,b}_{mic,spk}` for
/// the players (through plug, as a user's `default` is).
enum E2EDevices {
    /// A JACK server with the dummy backend, through ALSA's `jack` plugin.
    case jack(JACKServer)
    /// PipeWire with wireplumber and null sinks, through ALSA's `pipewire` plugin.
    case pipewire(PipeWireServer)

    /// Which server a run asks for (`--devices`).
    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case jack
        case pipewire

        var isInstalled: Bool {
            switch self {
            case .jack: JACKServer.isInstalled
            case .pipewire: PipeWireServer.isInstalled
            }
        }

        /// What the output says it is.
        var description: String {
            switch self {
            case .jack: "JACK, dummy backend (ALSA's jack plugin)"
            case .pipewire: "PipeWire with wireplumber and null sinks (ALSA's pipewire plugin)"
            }
        }

        /// What the report's labels add: nothing for JACK, the default.
        var labelSuffix: String { self == .pipewire ? " on PipeWire" : "" }
    }

    /// Starts a server of `kind`.
    init(_ kind: Kind, serverName: String, periodFrames: Int, directory: String) throws {
        switch kind {
        case .pipewire: self = .pipewire(try PipeWireServer(prefix: serverName, directory: directory))
        case .jack:
            self = .jack(
                try JACKServer(
                    name: serverName, periodFrames: periodFrames, logDirectory: URL(fileURLWithPath: directory)))
        }
    }

    /// What the players' processes need in their environment to reach the server.
    var environment: [String: String] {
        switch self {
        case .jack(let server): ["JACK_DEFAULT_SERVER": server.name]
        case .pipewire(let server): server.environment
        }
    }

    /// The run's PCMs, for the clients (JACK) or nodes (PipeWire) of run `tag`.
    func pcmDefinitions(tag: String) -> String {
        switch self {
        case .jack:
            func pcm(_ name: String, _ client: String, playback: Bool) -> String {
                let ports = playback ? "playback_ports { 0 system:playback_1 }" : "capture_ports { 0 system:capture_1 }"
                return "pcm.\(name)_jack { type jack name \"\(client)\(tag)\" \(ports) }\n"
                    + "pcm.\(name) { type plug slave.pcm \"\(name)_jack\" }"
            }
            // The jack plugin takes float samples only, and the CLI opens 16-bit ones: plug converts.
            return """
                pcm.e2e_inj { type jack name "inj\(tag)" playback_ports { 0 system:playback_1 } }
                pcm.e2e_det { type jack name "det\(tag)" capture_ports { 0 system:capture_1 1 system:capture_2 } }
                \(pcm("e2e_a_mic", "amic", playback: false))
                \(pcm("e2e_a_spk", "aspk", playback: true))
                \(pcm("e2e_b_mic", "bmic", playback: false))
                \(pcm("e2e_b_spk", "bspk", playback: true))

                """
        case .pipewire(let server):
            return server.pcmDefinitions(pcmPrefix: "e2e")
        }
    }

    /// The recorder of run `tag`.
    func recorder(tag: String, periodFrames: Int) -> ChainRecorder {
        switch self {
        case .jack(let server): ChainRecorder(jack: server, prefix: "e2e", tag: tag, periodFrames: periodFrames)
        case .pipewire: ChainRecorder(prefix: "e2e", periodFrames: periodFrames)
        }
    }

    func stop() {
        switch self {
        case .jack(let server): server.stop()
        case .pipewire(let server): server.stop()
        }
    }
}
