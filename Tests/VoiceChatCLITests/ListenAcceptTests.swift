import Foundation
import Testing

@testable import voicechat

/// `listen --accept`: more than one call, one after the other, from one command.
@Suite struct ListenAcceptTests {
    private let files = ["--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null"]

    /// Starts `listen --accept 2` with `listening`, then calls it as bob and then as carol, 1.5 s each;
    /// returns the listener, to be waited for.
    private func answerBobThenCarol(port: Int, listening: [String], in directory: URL) throws -> BackgroundCommand {
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: ["listen", "--port", String(port), "--name", "alice", "--accept", "2", "--duration", "40"]
                + listening,
            directory: directory, label: "listener")
        #expect(listener.waitForOutput("listening on", seconds: 10))
        for caller in ["bob", "carol"] {
            let call = try CommandRunner.run(
                ["call", "127.0.0.1:\(port)", "--name", caller, "--duration", "1.5"] + files)
            #expect(call.status == 0, "\(caller): \(call.standardError)")
            let said = call.standardOutput + call.standardError
            #expect(said.contains("call with alice ended"), "\(caller): \(said)")
        }
        return listener
    }

    /// Two callers in turn are answered, each with a fresh engine on the same port, and the
    /// listener exits 0 after the second (it answered one call and exited before).
    @Test func answersTheCallsItWasToldToOneAfterTheOther() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.acceptingListener.port
        let listener = try answerBobThenCarol(port: port, listening: files, in: directory)
        defer { listener.stop() }
        #expect(listener.waitForExit(seconds: 10) == 0)
        #expect(listener.waitForOutput("bob connected (call 1)", seconds: 1))
        #expect(listener.waitForOutput("carol connected (call 2)", seconds: 1))
        #expect(listener.waitForOutput("stopped after 2 calls", seconds: 1))
    }

    /// Each call of `--accept 2` keeps its own files: the recording, the statistics and the summary
    /// get the call's number (before, the second call overwrote the first's, and the summary listed
    /// only carol).
    @Test func eachCallWritesFilesOfItsOwn() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.numberingListener.port
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let listener = try answerBobThenCarol(
            port: port,
            listening: [
                "--input", CommandRunner.fixture("tone-1k.wav"), "--output", file("heard.wav"), "--record",
                file("kept.wav"), "--summary-json", file("summary.json"), "--stats-json", file("stats.jsonl"),
            ], in: directory)
        defer { listener.stop() }
        #expect(listener.waitForExit(seconds: 10) == 0, "\(listener.standardError)")
        for (number, caller) in [(1, "bob"), (2, "carol")] {
            let summary = try String(contentsOfFile: file("summary-\(number).json"), encoding: .utf8)
            #expect(summary.contains("\"\(caller)\""), "call \(number): \(summary)")
            #expect(!summary.contains(caller == "bob" ? "\"carol\"" : "\"bob\""), "call \(number): \(summary)")
            for name in ["heard-\(number).wav", "kept-\(number).wav", "stats-\(number).jsonl"] {
                let size = (try? FileManager.default.attributesOfItem(atPath: file(name))[.size] as? Int) ?? 0
                #expect(size > 0, "\(name) is missing or empty")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: file("summary.json")))
    }

    /// A listener that Ctrl-C stopped exits with the signal's status even when a call failed before
    /// (it exited 1 and said that call's error again); one answering many calls ends by counting the
    /// failed ones, each of which it said when it ended.
    @Test func theEndingSaysEachFailureOnce() {
        let earlier = CommandFailure("the connection to bob ended during the call (reset)")
        #expect(ListenCommand.failure(interrupted: true, accept: 0, answered: 3, failed: 1, first: earlier) == nil)
        #expect(ListenCommand.failure(interrupted: true, accept: 1, answered: 1, failed: 1, first: earlier) == nil)
        #expect(ListenCommand.failure(interrupted: false, accept: 0, answered: 3, failed: 0, first: nil) == nil)
        #expect(
            ListenCommand.failure(interrupted: false, accept: 1, answered: 1, failed: 1, first: earlier)?.description
                == earlier.description)
        #expect(
            ListenCommand.failure(interrupted: false, accept: 3, answered: 3, failed: 2, first: earlier)?.description
                == "2 of 3 calls failed (each said above)")
    }

    @Test func aNegativeCountIsRefused() throws {
        let result = try CommandRunner.run(["listen", "--accept", "-1"] + files)
        #expect(result.status == 64)
        #expect(
            result.standardError.contains("'--accept <calls>': it must be 0…1000000 calls"), "\(result.standardError)")
    }
}
