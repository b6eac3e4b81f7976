import Foundation
import Testing

/// `listen --accept`: more than one call, one after the other, from one command.
@Suite struct ListenAcceptTests {
    private let files = ["--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null"]

    /// Two callers in turn are answered, each with a fresh engine on the same port, and the
    /// listener exits 0 after the second (it answered one call and exited before).
    @Test func answersTheCallsItWasToldToOneAfterTheOther() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.acceptingListener.port
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: ["listen", "--port", String(port), "--name", "alice", "--accept", "2", "--duration", "40"]
                + files,
            directory: directory, label: "listener")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 10))
        for caller in ["bob", "carol"] {
            let call = try CommandRunner.run(
                ["call", "127.0.0.1:\(port)", "--name", caller, "--duration", "1.5"] + files)
            #expect(call.status == 0, "\(caller): \(call.standardError)")
            let said = call.standardOutput + call.standardError
            #expect(said.contains("call with alice ended"), "\(caller): \(said)")
        }
        #expect(listener.waitForExit(seconds: 10) == 0)
        #expect(listener.waitForOutput("bob connected (call 1)", seconds: 1))
        #expect(listener.waitForOutput("carol connected (call 2)", seconds: 1))
        #expect(listener.waitForOutput("stopped after 2 calls", seconds: 1))
    }

    @Test func aNegativeCountIsRefused() throws {
        let result = try CommandRunner.run(["listen", "--accept", "-1"] + files)
        #expect(result.status == 64)
        #expect(result.standardError.contains("'--accept <calls>': it must be 0…1000000 calls"), "\(result.standardError)")
    }
}
