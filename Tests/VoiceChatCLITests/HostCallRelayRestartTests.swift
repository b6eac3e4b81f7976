import Foundation
import Testing

/// A relay that restarts under a match: its players say they lost it, and then that they rejoined
/// (before, they said "rejoining" and never that they had).
@Suite struct HostCallRelayRestartTests {
    @Test func playersSayTheyRejoinedARestartedRelay() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = try CommandRunner.secretFile("0123456789abcdef0123456789abcdef", in: directory)
        let port = TestPort.relayRestart.port
        let first = try BackgroundCommand.relay(port: port, secretFile: secretFile, seconds: 30, directory: directory)
        defer { first.stop() }
        #expect(first.waitForOutput("relay listening", seconds: 15), "\(first.standardError)")
        let token = try CommandRunner.token(secretFile: secretFile, match: "arena", participant: "alice")
        let alice = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "join", "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", "alice", "--token", token,
                "--channel", "all", "--input", CommandRunner.fixture("speech-male.wav"), "--output", "/dev/null",
                "--duration", "25",
            ],
            directory: directory, label: "alice")
        defer { alice.stop() }
        #expect(alice.waitForOutput("joined; no other player yet", seconds: 15), "\(alice.standardOutput)")

        first.stop()
        let second = try BackgroundCommand.relay(port: port, secretFile: secretFile, seconds: 30, directory: directory)
        defer { second.stop() }
        #expect(second.waitForOutput("relay listening", seconds: 15), "\(second.standardError)")
        let said = { "\(alice.standardOutput)\(alice.standardError)" }
        #expect(alice.waitForOutput("rejoined the relay", seconds: 15), "\(said())")
        #expect(said().contains("lost the relay's signalling connection; rejoining"), "\(said())")
    }
}
