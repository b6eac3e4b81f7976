import Foundation
import VoiceTestHarness

/// A private PipeWire sound server, as current desktops and SteamOS run it, started headless by
/// the end-to-end benchmark: a session bus, `pipewire` and `wireplumber`, each its own process
/// stopped by its PID, with runtime, configuration and state in a directory of their own, so the
/// machine's default ALSA device and any other server are left alone.
///
/// Its graph has the benchmark's chain as nodes (null sinks and virtual sources, named
/// `PREFIX-…`): `PREFIX-inj` (a sink the benchmark plays the signal into), `PREFIX-a-mic` (a
/// source fed from its monitor, alice's microphone), `PREFIX-b-spk` (a sink, bob's speaker),
/// `PREFIX-a-spk` and `PREFIX-b-mic` (alice's speaker and bob's silent microphone), and
/// `PREFIX-det` (a two-channel source: the signal on the left, bob's speaker on the right,
/// in the same graph cycle). The players reach them through ALSA's `pipewire` plugin, which
/// wireplumber links to the node each PCM names.
final class PipeWireServer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let prefix: String
    /// Where the server's socket is: clients find it through PIPEWIRE_RUNTIME_DIR.
    let runtimeDirectory: String
    /// The session bus, the server and its session manager, in the order they started.
    private var processes: [ChildProcess] = []

    static var isInstalled: Bool {
        ["pipewire", "wireplumber", "pw-link", "dbus-daemon"].allSatisfy { JACKServer.executable($0) != nil }
            && FileManager.default.fileExists(atPath: "/usr/share/alsa/alsa.conf.d/50-pipewire.conf")
    }

    /// Starts the bus, the server and its session manager in `directory` and links the chain.
    init(prefix: String, directory: String) throws {
        self.prefix = prefix
        runtimeDirectory = directory + "/pipewire-\(prefix)"
        let configuration = runtimeDirectory + "/config/pipewire/pipewire.conf.d"
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        chmod(runtimeDirectory, 0o700)
        try nodes().write(toFile: configuration + "/\(prefix).conf", atomically: true, encoding: .utf8)
        do {
            let bus = "unix:path=\(runtimeDirectory)/bus"
            let environment = [
                "XDG_RUNTIME_DIR": runtimeDirectory, "PIPEWIRE_RUNTIME_DIR": runtimeDirectory,
                "XDG_CONFIG_HOME": runtimeDirectory + "/config", "XDG_STATE_HOME": runtimeDirectory + "/state",
                "DBUS_SESSION_BUS_ADDRESS": bus,
            ]
            try start("dbus-daemon", ["--session", "--nofork", "--address=\(bus)"], environment: environment)
            try waitFor("the session bus") { FileManager.default.fileExists(atPath: "\(self.runtimeDirectory)/bus") }
            try start("pipewire", [], environment: environment)
            try waitFor("its socket") { FileManager.default.fileExists(atPath: "\(self.runtimeDirectory)/pipewire-0") }
            // The session manager gives the nodes their ports.
            try start("wireplumber", [], environment: environment)
            try waitFor("the chain's ports") {
                let ports = (try? self.link(["--input"])) ?? ""
                return ports.contains("\(prefix)-det:input_FR")
            }
            try link(["\(prefix)-inj:monitor_MONO", "\(prefix)-a-mic:input_MONO"])
            try link(["\(prefix)-inj:monitor_MONO", "\(prefix)-det:input_FL"])
            try link(["\(prefix)-b-spk:monitor_MONO", "\(prefix)-det:input_FR"])
        } catch {
            stop()
            throw error
        }
    }

    /// The environment a client needs besides this process's.
    var environment: [String: String] { ["PIPEWIRE_RUNTIME_DIR": runtimeDirectory] }

    /// ALSA PCMs `PCM_PREFIX_inj`, `_det`, `_a_mic`, `_a_spk`, `_b_mic`, `_b_spk` on the chain's nodes.
    /// The players' go through plug, as a user's `default` does.
    func pcmDefinitions(pcmPrefix: String) -> String {
        func player(_ pcm: String, _ node: String, playback: Bool) -> String {
            "pcm.\(pcmPrefix)_\(pcm) { type plug slave.pcm { type pipewire "
                + "\(playback ? "playback_node" : "capture_node") \"\(prefix)-\(node)\" } }"
        }
        return """
            pcm.\(pcmPrefix)_inj { type pipewire playback_node "\(prefix)-inj" }
            pcm.\(pcmPrefix)_det { type pipewire capture_node "\(prefix)-det" }
            \(player("a_mic", "a-mic", playback: false))
            \(player("a_spk", "a-spk", playback: true))
            \(player("b_mic", "b-mic", playback: false))
            \(player("b_spk", "b-spk", playback: true))

            """
    }

    /// Stops each process by its PID, last started first, and removes the server's directory.
    func stop() {
        for process in processes.reversed() { process.terminate() }
        processes.removeAll()
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    /// The null sinks and virtual sources of the chain, as a drop-in for pipewire.conf.
    private func nodes() -> String {
        func node(_ name: String, _ mediaClass: String, _ positions: String) -> String {
            "    { factory = adapter args = { factory.name = support.null-audio-sink node.name = \"\(prefix)-\(name)\" "
                + "media.class = \(mediaClass) audio.position = [ \(positions) ] } }"
        }
        return """
            context.objects = [
            \(node("inj", "Audio/Sink", "MONO"))
            \(node("a-mic", "Audio/Source/Virtual", "MONO"))
            \(node("a-spk", "Audio/Sink", "MONO"))
            \(node("b-mic", "Audio/Source/Virtual", "MONO"))
            \(node("b-spk", "Audio/Sink", "MONO"))
            \(node("det", "Audio/Source/Virtual", "FL FR"))
            ]

            """
    }

    private func start(_ tool: String, _ arguments: [String], environment: [String: String]) throws {
        guard let path = JACKServer.executable(tool) else {
            throw Failure(description: "\(tool) is not installed: run scripts/setup.sh first")
        }
        processes.append(
            try ChildProcess(
                label: tool, executable: path, arguments: arguments, environment: environment, keepingErrors: true))
    }

    private func waitFor(_ what: String, seconds: Double = 15, _ ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if ready() { return }
            if let ended = processes.first(where: { $0.waitForExit(seconds: 0) }) {
                throw Failure(description: "\(ended.label) ended while waiting for \(what): \(messages)")
            }
            usleep(100_000)
        }
        throw Failure(description: "PipeWire did not bring up \(what) within \(Int(seconds)) s: \(messages)")
    }

    /// What the server's processes printed, for a failure's message.
    private var messages: String {
        processes.map { "\($0.label): " + $0.keptLines.joined(separator: " | ") }.joined(separator: "; ")
    }

    /// Runs `pw-link` against this server, without the allocation-counting interposer.
    @discardableResult
    private func link(_ arguments: [String]) throws -> String {
        guard let path = JACKServer.executable("pw-link") else {
            throw Failure(description: "pw-link is not installed")
        }
        return try runToCompletion(
            path, arguments, environment: ["PIPEWIRE_RUNTIME_DIR": runtimeDirectory, "LD_PRELOAD": nil])
    }
}
