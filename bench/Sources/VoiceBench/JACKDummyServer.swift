import Foundation

/// A JACK server with the `dummy` backend that the latency benchmark starts and stops itself:
/// a real-time clock for ALSA's `jack` plugin on a machine without a sound card.
///
/// The server runs without real-time priority (a container cannot grant it), so under load it
/// may miss a cycle now and then; the latency benchmark sees that as an outlier click.
final class JACKDummyServer {
    let name: String
    let periodFrames: Int
    private let process = Process()
    private let log: URL

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The full path of `tool` from PATH, or nil when it is not installed.
    static func executable(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Starts `jackd --no-realtime -n NAME -d dummy -r 48000 -p PERIOD` and waits until it
    /// accepts clients. Sets JACK_DEFAULT_SERVER in this process (children inherit it) so that
    /// ALSA's `jack` plugin connects to this server.
    init(name: String, periodFrames: Int, logDirectory: String) throws {
        self.name = name
        self.periodFrames = periodFrames
        guard let jackd = Self.executable("jackd"), Self.executable("jack_connect") != nil else {
            throw Failure(description: "jackd or jack_connect is missing: apt-get install jackd2 libasound2-plugins")
        }
        log = URL(fileURLWithPath: logDirectory).appendingPathComponent("jackd-\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: jackd)
        process.arguments = [
            "--no-realtime", "-n", name, "-d", "dummy", "-r", "48000", "-p", "\(periodFrames)", "-C", "2", "-P", "2",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        environment["JACK_DEFAULT_SERVER"] = name
        environment["JACK_NO_AUDIO_RESERVATION"] = "1"
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        setenv("JACK_DEFAULT_SERVER", name, 1)
        setenv("JACK_NO_AUDIO_RESERVATION", "1", 1)
        guard waitUntilReady(seconds: 15) else {
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            stop()
            throw Failure(description: "jackd -n \(name) did not accept clients within 15 s:\n\(output)")
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
    func connect(_ source: String, to destination: String) throws {
        _ = try run("jack_connect", ["-s", name, source, destination])
    }

    /// Every port and its connections (`jack_lsp -c`), for messages.
    func connections() -> String {
        (try? run("jack_lsp", ["-c", "-s", name])) ?? ""
    }

    /// Stops the server by its PID and removes the files in /dev/shm that carry its name.
    func stop() {
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
        try? FileManager.default.removeItem(at: log)
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        guard let path = Self.executable(tool) else { throw Failure(description: "\(tool) is not installed") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: path)
        probe.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        probe.environment = environment
        let output = Pipe()
        let errors = Pipe()
        probe.standardOutput = output
        probe.standardError = errors
        try probe.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(errorText)")
        }
        return text
    }
}
