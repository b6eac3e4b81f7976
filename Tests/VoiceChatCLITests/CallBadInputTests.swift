import Foundation
import Testing
import VoiceTestSupport

@testable import voicechat

/// `listen` and `call` refuse bad input with one line that says what to do, and a non-zero exit.
@Suite struct CallBadInputTests {
    private func expectOneLineFailure(
        _ result: CommandResult, containing text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status != 0, sourceLocation: sourceLocation)
        let lines = result.standardError.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.contains(text), "\(result.standardError)", sourceLocation: sourceLocation)
    }

    private let files = ["--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null"]

    @Test func aMalformedAddressIsExplained() throws {
        // A malformed address is a usage error, as every malformed option is (`--advertise`, `join --relay`).
        for address in ["localhost", "127.0.0.1:", "127.0.0.1:99999", ":7300", "::1:7300", "[::1]7300"] {
            let result = try CommandRunner.run(["call", address] + files)
            #expect(result.status == 64, "\(address): \(result.standardError)")
            #expect(result.standardError.hasPrefix("Error: invalid address"), "\(address): \(result.standardError)")
            #expect(result.standardError.contains("write it as HOST:PORT"), "\(address): \(result.standardError)")
        }
    }

    @Test func nobodyListeningIsExplained() throws {
        let port = TestPort.nobodyListening.port
        let result = try CommandRunner.run(["call", "127.0.0.1:\(port)"] + files)
        expectOneLineFailure(result, containing: "nothing is listening at 127.0.0.1:\(port); start `voicechat listen")
    }

    @Test func aPeerThatNeverAnswersTimesOut() throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let started = Date()
        let result = try CommandRunner.run(
            ["call", "127.0.0.1:\(silent.port)", "--connect-timeout", "1"] + files)
        expectOneLineFailure(result, containing: "sent no hello within 1 s")
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func aPortInUseIsExplained() throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let result = try CommandRunner.run(
            ["listen", "--port", String(silent.port), "--duration", "1"] + files)
        expectOneLineFailure(result, containing: "already in use")
    }

    /// `listen` checks where its stats and control socket go before it waits for a caller, not
    /// when one arrives (the caller then only heard that the listener closed the connection).
    @Test func listenRefusesUnusableObservationPathsAtStartUp() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [([String], String)] = [
            (["--stats-json", "/nonexistent-dir/stats.jsonl"], "its directory /nonexistent-dir does not exist"),
            (["--stats-json", directory.path], "it is a directory"),
            (["--control", "/nonexistent-dir/voice.sock"], "its directory /nonexistent-dir does not exist"),
            (["--control", CommandRunner.fixture("tone-1k.wav")], "exists and is not a socket"),
            (["--summary-json", "/nonexistent-dir/summary.json"], "its directory /nonexistent-dir does not exist"),
            (["--summary-json", directory.path], "it is a directory"),
        ]
        for (options, text) in cases {
            // Before the check, listen waited out its duration for a caller and exited 0.
            let result = try CommandRunner.run(
                ["listen", "--port", String(TestPort.listenPaths.port), "--duration", "5"] + options + files)
            #expect(result.status == 64, "\(options): \(result.standardError)")
            #expect(result.standardError.contains(text), "\(result.standardError)")
        }
    }

    /// Push-to-talk with nothing to press the talk key (no console, no control socket) would send
    /// nothing for the whole session; it is refused at start-up instead.
    @Test func pushToTalkWithNoKeyToTalkWithIsRefused() throws {
        let result = try CommandRunner.run(
            ["listen", "--port", String(TestPort.listenPaths.port), "--ptt", "--duration", "1"] + files)
        #expect(result.status == 64)
        #expect(result.standardError.contains("--ptt needs a key to talk with"), "\(result.standardError)")
        // A control socket can press it.
        #expect(throws: Never.self) {
            _ = try ListenCommand.parse(["--port", "7300", "--ptt", "--control", "/tmp/vc-ptt.sock"] + files)
        }
    }

    /// `listen --host` binds one address; one this machine lacks, or no address at all, is named
    /// as such (listen had no --host and always took every interface).
    @Test func listenTakesAHostAndNamesOneItCannotUse() throws {
        let port = String(TestPort.listenPaths.port)
        let foreign = try CommandRunner.run(
            ["listen", "--host", "192.0.2.1", "--port", port, "--duration", "1"] + files)
        expectOneLineFailure(foreign, containing: "192.0.2.1 is not an address of this machine")
        let nonsense = try CommandRunner.run(
            ["listen", "--host", "nonsense", "--port", port, "--duration", "1"] + files)
        #expect(nonsense.status == 64)
        #expect(nonsense.standardError.contains("--host: invalid host \"nonsense\""))
    }

    @Test func anUnknownALSADeviceIsNamed() throws {
        let result = try CommandRunner.run([
            "listen", "--port", String(TestPort.unknownALSADevice.port), "--capture", "no_such_pcm_device", "--output",
            "/dev/null", "--duration", "1",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("no_such_pcm_device"), "\(result.standardError)")
    }

    @Test func aRelayPathNeedsJoin() throws {
        for command in [["listen"], ["call", "127.0.0.1:7300"]] {
            let result = try CommandRunner.run(command + ["--path", "relay"] + files)
            #expect(result.status != 0)
            #expect(result.standardError.contains("voicechat join --relay"), "\(result.standardError)")
        }
    }

    @Test func aBusyListenerRefusesASecondCaller() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.busyListener.port
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: ["listen", "--port", String(port), "--name", "alice", "--duration", "8"] + files,
            directory: directory, label: "listener")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 10))
        let first = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: ["call", "127.0.0.1:\(port)", "--name", "bob", "--duration", "6"] + files,
            directory: directory, label: "first")
        defer { first.stop() }
        #expect(first.waitForOutput("connected to alice", seconds: 10))
        let second = try CommandRunner.run(["call", "127.0.0.1:\(port)", "--name", "carol"] + files)
        expectOneLineFailure(second, containing: "already in a call with \"bob\"")
    }

    @Test func everyOptionHasAnExampleInHelp() throws {
        for command in ["listen", "call"] {
            let result = try CommandRunner.run([command, "--help"])
            #expect(result.status == 0)
            for option in ["--record", "--path", "--frame-ms", "--bitrate", "--ptt", "--duration", "--name"] {
                #expect(result.standardOutput.contains(option), "\(command) --help lacks \(option)")
            }
            #expect(result.standardOutput.contains("Examples:"))
        }
    }
}
