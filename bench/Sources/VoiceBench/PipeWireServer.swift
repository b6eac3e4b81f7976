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
    private var processes: [Process] = []
    private let logFile: String

    static var isInstalled: Bool {
        ["pipewire", "wireplumber", "pw-link", "dbus-daemon"].allSatisfy { JACKServer.executable($0) != nil }
            && FileManager.default.fileExists(atPath: "/usr/share/alsa/alsa.conf.d/50-pipewire.conf")
    }

    /// Starts the bus, the server and its session manager in `directory` and links the chain.
    init(prefix: String, directory: String) throws {
        self.prefix = prefix
        runtimeDirectory = directory + "/pipewire-\(prefix)"
        logFile = runtimeDirectory + "/server.log"
        let configuration = runtimeDirectory + "/config/pipewire/pipewire.conf.d"
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        chmod(runtimeDirectory, 0o700)
        try nodes().write(toFile: configuration + "/\(prefix).conf", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
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
                let ports = (try? self.tool("pw-link", ["--input"])) ?? ""
                return ports.contains("\(prefix)-det:input_FR")
            }
            try tool("pw-link", ["\(prefix)-inj:monitor_MONO", "\(prefix)-a-mic:input_MONO"])
            try tool("pw-link", ["\(prefix)-inj:monitor_MONO", "\(prefix)-det:input_FL"])
            try tool("pw-link", ["\(prefix)-b-spk:monitor_MONO", "\(prefix)-det:input_FR"])
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
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
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

    private func start(_ tool: String, _ arguments: [String], environment extra: [String: String]) throws {
        guard let path = JACKServer.executable(tool) else {
            throw Failure(description: "\(tool) is not installed: run scripts/setup.sh first")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = Self.childEnvironment(extra)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        processes.append(process)
    }

    private func waitFor(_ what: String, seconds: Double = 15, _ ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if ready() { return }
            if let ended = processes.first(where: { !$0.isRunning }) {
                throw Failure(
                    description: "\(ended.executableURL?.lastPathComponent ?? "?") ended while waiting for \(what): "
                        + ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""))
            }
            usleep(100_000)
        }
        throw Failure(
            description: "PipeWire did not bring up \(what) within \(Int(seconds)) s: "
                + ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""))
    }

    /// Runs a PipeWire tool against this server; throws with its output when it fails.
    @discardableResult
    private func tool(_ tool: String, _ arguments: [String]) throws -> String {
        guard let path = JACKServer.executable(tool) else { throw Failure(description: "\(tool) is not installed") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: path)
        probe.arguments = arguments
        probe.environment = Self.childEnvironment(environment)
        let output = Pipe()
        probe.standardOutput = output
        probe.standardError = output
        try probe.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }

    /// This process's environment with `extra` set; the allocation-counting interposer stays out.
    private static func childEnvironment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        environment.merge(extra) { $1 }
        return environment
    }
}
