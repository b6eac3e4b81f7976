import Foundation
import VoiceCore

/// A JACK server with the `dummy` backend, started and stopped by a test or a benchmark: a
/// real-time clock for ALSA's `jack` plugin on a machine without a sound card.
///
/// The server runs with real-time priority where this process may have it; without (a container
/// seldom grants it), it may miss a cycle now and then under load.
public final class JACKServer {
    public let name: String
    private let process = Process()
    private let logFile: URL

    /// The full path of `tool` from PATH, or nil when it is not installed.
    public static func executable(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Whether this process may give a thread SCHED_FIFO priority: asked on a thread of its own,
    /// which ends at once, so that no thread that matters changes its scheduling.
    static let realTimePermitted: Bool = {
        guard let probe = try? AudioThread(name: "real-time probe", scheduling: .realTime(priority: 1), body: { _ in })
        else { return false }
        probe.join()
        return probe.isRealTimeScheduled
    }()

    public static var isInstalled: Bool {
        executable("jackd") != nil && executable("jack_lsp") != nil
    }

    /// Starts `jackd -n NAME -d dummy -r 48000 -p PERIOD` (real-time where permitted, otherwise
    /// `--no-realtime`) and waits until it accepts clients. Sets JACK_DEFAULT_SERVER in this
    /// process (children inherit it) so that ALSA's `jack` plugin connects to this server.
    public init(name: String, periodFrames: Int = 480, logDirectory: URL) throws {
        self.name = name
        guard let jackd = Self.executable("jackd") else {
            throw JACKServerError("jackd is not installed: apt-get install jackd2 libasound2-plugins")
        }
        logFile = logDirectory.appendingPathComponent("jackd-\(name).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process.executableURL = URL(fileURLWithPath: jackd)
        // Real-time where this process may have it, as a desktop's sound server runs: a
        // time-sharing server misses its cycles on a busy machine and the devices under test
        // then lose audio that no engine could have kept.
        let scheduling = Self.realTimePermitted ? ["--realtime", "--realtime-priority", "80"] : ["--no-realtime"]
        process.arguments =
            scheduling + [
                "-n", name, "-d", "dummy", "-r", "48000", "-p", "\(periodFrames)", "-C", "2", "-P", "2",
            ]
        process.environment = Self.childEnvironment(["JACK_DEFAULT_SERVER": name, "JACK_NO_AUDIO_RESERVATION": "1"])
        process.standardOutput = log
        process.standardError = log
        try process.run()
        setenv("JACK_DEFAULT_SERVER", name, 1)
        setenv("JACK_NO_AUDIO_RESERVATION", "1", 1)
        guard waitUntilReady(seconds: 15) else {
            let output = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            stop()
            throw JACKServerError("jackd -n \(name) did not accept clients within 15 s:\n\(output)")
        }
    }

    private func waitUntilReady(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && process.isRunning {
            if let ports = try? run("jack_lsp", ["-s", name]), ports.contains("system:playback_1") { return true }
            usleep(100_000)
        }
        return false
    }

    /// Connects output port `source` to input port `destination` (`client:port` names).
    public func connect(_ source: String, to destination: String) throws {
        _ = try run("jack_connect", ["-s", name, source, destination])
    }

    /// Every port and its connections (`jack_lsp -c`), for messages.
    public func connections() -> String {
        (try? run("jack_lsp", ["-c", "-s", name])) ?? ""
    }

    /// Stops the server by its PID (killing it if it does not stop within 5 s) and removes the
    /// files in /dev/shm that carry its name (they stay behind when it cannot clean up).
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let shm = "/dev/shm"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: shm)) ?? []
        where entry.hasPrefix("jack") && (entry.contains("_\(name)_") || entry.hasSuffix("_\(name)")) {
            try? FileManager.default.removeItem(atPath: "\(shm)/\(entry)")
        }
        try? FileManager.default.removeItem(at: logFile)
    }

    /// This process's environment for a JACK tool, with `extra` set. An allocation-counting
    /// interposer preloaded into a benchmark must not follow it into jackd and its tools.
    private static func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        environment.merge(extra) { $1 }
        return environment
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        guard let path = Self.executable(tool) else { throw JACKServerError("\(tool) is not installed") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: path)
        probe.arguments = arguments
        probe.environment = Self.childEnvironment()
        let output = Pipe()
        let errors = Pipe()
        probe.standardOutput = output
        probe.standardError = errors
        try probe.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            throw JACKServerError("\(tool) \(arguments.joined(separator: " ")) failed: \(errorText)")
        }
        return text
    }
}

public struct JACKServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
