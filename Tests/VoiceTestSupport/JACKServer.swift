import Foundation

/// A JACK server with the `dummy` backend, started and stopped by a test: a real-time
/// clock for ALSA's `jack` plugin on a machine without a sound card.
public final class JACKServer {
    public let name: String
    private let process = Process()
    public let logFile: URL

    /// The full path of `tool` from PATH, or nil when it is not installed.
    public static func executable(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    public static var isInstalled: Bool {
        executable("jackd") != nil && executable("jack_lsp") != nil
    }

    /// Starts `jackd --no-realtime -n NAME -d dummy -r 48000 -p 480` and waits until it
    /// accepts clients. Sets JACK_DEFAULT_SERVER in this process so that ALSA's `jack`
    /// plugin connects to it.
    public init(name: String, logDirectory: URL) throws {
        self.name = name
        guard let jackd = Self.executable("jackd") else { throw JACKServerError("jackd is not installed") }
        logFile = logDirectory.appendingPathComponent("jackd-\(name).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process.executableURL = URL(fileURLWithPath: jackd)
        process.arguments = [
            "--no-realtime", "-n", name, "-d", "dummy", "-r", "48000", "-p", "480", "-C", "2", "-P", "2",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = name
        environment["JACK_NO_AUDIO_RESERVATION"] = "1"
        process.environment = environment
        process.standardOutput = log
        process.standardError = log
        try process.run()
        setenv("JACK_DEFAULT_SERVER", name, 1)
        setenv("JACK_NO_AUDIO_RESERVATION", "1", 1)
        guard waitUntilReady(seconds: 15) else {
            stop()
            let output = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw JACKServerError("jackd -n \(name) did not accept clients within 15 s:\n\(output)")
        }
    }

    private func waitUntilReady(seconds: Double) -> Bool {
        guard let lsp = Self.executable("jack_lsp") else { return false }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && process.isRunning {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: lsp)
            probe.arguments = ["-s", name]
            let output = Pipe()
            probe.standardOutput = output
            probe.standardError = FileHandle.nullDevice
            guard (try? probe.run()) != nil else { return false }
            let ports = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            probe.waitUntilExit()
            if probe.terminationStatus == 0 && ports.contains("system:playback_1") { return true }
            usleep(100_000)
        }
        return false
    }

    /// Stops the server by its PID and removes the files in /dev/shm that carry its name
    /// (they stay behind when it cannot clean up).
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        let shm = "/dev/shm"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: shm)) ?? []
        where entry.hasPrefix("jack") && (entry.contains("_\(name)_") || entry.hasSuffix("_\(name)")) {
            try? FileManager.default.removeItem(atPath: "\(shm)/\(entry)")
        }
        try? FileManager.default.removeItem(at: logFile)
    }

    /// Runs `jack_lsp -c` against this server: every port and its connections, for messages.
    public func connections() -> String {
        guard let lsp = Self.executable("jack_lsp") else { return "" }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: lsp)
        probe.arguments = ["-c", "-s", name]
        let output = Pipe()
        probe.standardOutput = output
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        return text
    }
}

public struct JACKServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
