import Foundation
import Testing

/// The interactive console as a user meets it: `voicechat call` on a terminal (tmux, on a server
/// of its own), keys typed into it, what the screen shows and what the session's stats file says
/// the state is. Real time: paced suite.
@Suite struct HostCallConsoleTmuxTests {
    /// A tmux server of this test's own (`-L`), so that no other tmux is touched.
    final class Terminal {
        let socketName = "vc-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let session = "call"

        init(command: String) throws {
            // Not waited for: the server it starts inherits what Foundation watches for the
            // launcher's exit, and keeps it until the server ends. The session's presence says it ran.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Terminal.tmuxPath)
            process.arguments = [
                "-L", socketName, "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command,
            ]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(5)
            while try tmux(["has-session", "-t", session]).status != 0 {
                guard Date() < deadline else { throw TerminalError.noSession }
                usleep(20_000)
            }
        }

        enum TerminalError: Error { case noSession }

        func tmux(_ arguments: [String]) throws -> CommandResult {
            try CommandRunner.run(["-L", socketName] + arguments, executable: URL(fileURLWithPath: Terminal.tmuxPath))
        }

        func type(_ key: String) throws {
            _ = try tmux(["send-keys", "-t", session, "-l", key])
        }

        var screen: String { (try? tmux(["capture-pane", "-p", "-t", session]).standardOutput) ?? "" }

        /// Waits up to `seconds` for `text` on the screen.
        func waitFor(_ text: String, seconds: Double = 10) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if screen.contains(text) { return true }
                usleep(50_000)
            }
            return false
        }

        /// Ends this server and removes its socket file, which tmux leaves behind.
        func close() {
            _ = try? tmux(["kill-server"])
            let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
            unlink("\(directory)/tmux-\(getuid())/\(socketName)")
        }

        static let tmuxPath = "/usr/bin/tmux"
    }

    /// A listener to call, answering from a WAV file.
    private func listener(port: Int, directory: URL) throws -> BackgroundCommand {
        let process = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--host", "127.0.0.1", "--port", String(port), "--name", "alice", "--input",
                CommandRunner.fixture("speech-male.wav"), "--output",
                directory.appendingPathComponent("alice.wav").path,
                "--duration", "40",
            ],
            directory: directory, label: "alice")
        #expect(process.waitForOutput("listening on", seconds: 15), "\(process.standardError)")
        return process
    }

    /// Waits up to 5 s for the caller's stats file (a snapshot a second) to show `expected`.
    private func waitForState(
        _ file: URL, _ description: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ expected: ([String: Any]) -> Bool
    ) {
        let deadline = Date().addingTimeInterval(5)
        var last = ""
        while Date() < deadline {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            last = text.split(separator: "\n").last.map(String.init) ?? ""
            if let snapshot = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any],
                expected(snapshot)
            {
                return
            }
            usleep(100_000)
        }
        Issue.record("the stats never showed \(description); last: \(last)", sourceLocation: sourceLocation)
    }

    /// Runs `voicechat call` in the terminal with `options`; the shell writes its exit status to a file.
    private func call(port: Int, directory: URL, stats: URL, options: [String]) throws -> (Terminal, URL) {
        let status = directory.appendingPathComponent("status")
        let arguments =
            [
                CommandRunner.executable.path, "call", "127.0.0.1:\(port)", "--name", "bob", "--input",
                CommandRunner.fixture("speech-female.wav"), "--output",
                directory.appendingPathComponent("bob.wav").path,
                "--duration", "30", "--stats-json", stats.path,
            ] + options
        let terminal = try Terminal(command: arguments.joined(separator: " ") + "; echo $? > \(status.path)")
        return (terminal, status)
    }

    private func exitStatus(_ file: URL, seconds: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8), text.hasSuffix("\n") {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            usleep(50_000)
        }
        return nil
    }

    @Test func muteTalkVolumeAndQuitWithAnOpenMicrophone() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Terminal.tmuxPath), "tmux is missing: run scripts/setup.sh")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.consoleOpen.port
        let alice = try listener(port: port, directory: directory)
        defer { alice.stop() }
        let stats = directory.appendingPathComponent("bob.jsonl")
        let summaryFile = directory.appendingPathComponent("bob-summary.json")
        let (terminal, status) = try call(
            port: port, directory: directory, stats: stats, options: ["--summary-json", summaryFile.path])
        defer { terminal.close() }
        #expect(terminal.waitFor("alice"), "\(terminal.screen)")

        try terminal.type("m")
        #expect(terminal.waitFor("microphone muted"), "\(terminal.screen)")
        waitForState(stats, "the microphone muted") { $0["microphoneMuted"] as? Bool == true }
        try terminal.type("m")
        #expect(terminal.waitFor("microphone live"), "\(terminal.screen)")
        waitForState(stats, "the microphone live") { $0["microphoneMuted"] as? Bool == false }

        // Without --ptt, t never turns the microphone off.
        try terminal.type("t")
        #expect(terminal.waitFor("open microphone: everyone hears you"), "\(terminal.screen)")
        try terminal.type("t")
        waitForState(stats, "an open microphone after t twice") {
            $0["pushToTalk"] as? Bool == false && $0["microphoneMuted"] as? Bool == false
        }

        try terminal.type("-")
        #expect(terminal.waitFor("volume 90%"), "\(terminal.screen)")
        waitForState(stats, "volume 0.9") { ($0["volume"] as? Double).map { abs($0 - 0.9) < 0.01 } == true }
        try terminal.type("+")
        #expect(terminal.waitFor("volume 100%"), "\(terminal.screen)")
        waitForState(stats, "volume 1") { ($0["volume"] as? Double).map { abs($0 - 1) < 0.01 } == true }

        try terminal.type("q")
        #expect(exitStatus(status) == "0", "\(terminal.screen)")
        // Quitting is said as quitting (before: "interrupted", as after Ctrl-C).
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: summaryFile)) as? [String: Any]
        #expect(summary?["ending"] as? String == "quit", "\(summary ?? [:])")
    }

    @Test func theTalkKeyTalksAndStopsWithPushToTalk() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Terminal.tmuxPath), "tmux is missing: run scripts/setup.sh")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.consolePushToTalk.port
        let alice = try listener(port: port, directory: directory)
        defer { alice.stop() }
        let stats = directory.appendingPathComponent("bob.jsonl")
        let (terminal, status) = try call(port: port, directory: directory, stats: stats, options: ["--ptt"])
        defer { terminal.close() }
        #expect(terminal.waitFor("alice"), "\(terminal.screen)")
        waitForState(stats, "push-to-talk, not talking") {
            $0["pushToTalk"] as? Bool == true && $0["talking"] as? Bool == false
        }

        try terminal.type("t")
        #expect(terminal.waitFor("push-to-talk: talking (t to stop)"), "\(terminal.screen)")
        waitForState(stats, "talking") { $0["talking"] as? Bool == true }
        try terminal.type("t")
        #expect(terminal.waitFor("push-to-talk: not talking (t to talk)"), "\(terminal.screen)")
        waitForState(stats, "push-to-talk, released") {
            $0["pushToTalk"] as? Bool == true && $0["talking"] as? Bool == false
        }

        try terminal.type("q")
        #expect(exitStatus(status) == "0", "\(terminal.screen)")
    }
}
