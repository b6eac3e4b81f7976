import Foundation
import Testing

/// `voicechat relay --previous-secret-file`: while a new secret rolls out, tokens signed with the
/// old one are still taken, and tokens signed with any other are not.
@Suite struct RelaySecretRotationTests {
    /// Joins `arena` as `player` with `token` for 2 s; returns what the join printed and said.
    private func join(port: Int, player: String, token: String, in directory: URL) throws -> CommandResult {
        try CommandRunner.run(
            [
                "join", "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", player, "--token", token,
                "--channel", "all", "--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null",
                "--duration", "2", "--no-console",
            ], in: directory)
    }

    @Test func tokensOfTheSecretBeingRetiredAreStillTaken() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = try CommandRunner.secretFile("old-secret-0123456789abcdef", name: "old.secret", in: directory)
        let new = try CommandRunner.secretFile("new-secret-0123456789abcdef", name: "new.secret", in: directory)
        let other = try CommandRunner.secretFile("some-other-secret-0123456789", name: "other.secret", in: directory)
        let port = TestPort.rotationRelay.port
        let relay = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", new.path,
                "--previous-secret-file", old.path, "--report-every", "0", "--duration", "30",
            ], directory: directory, label: "relay")
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")
        for (player, secret) in [("alice", new), ("bob", old)] {
            let token = try CommandRunner.token(secretFile: secret, match: "arena", participant: player)
            let result = try join(port: port, player: player, token: token, in: directory)
            #expect(result.status == 0, "\(player): \(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.contains("joined;"), "\(player): \(result.standardOutput)")
        }
        let forged = try CommandRunner.token(secretFile: other, match: "arena", participant: "mallory")
        let refused = try join(port: port, player: "mallory", token: forged, in: directory)
        #expect(refused.status == 1, "\(refused.standardOutput)\(refused.standardError)")
        #expect(!refused.standardOutput.contains("joined;"), "\(refused.standardOutput)")
        #expect(refused.standardError.contains("bad token signature"), "\(refused.standardError)")
    }

    /// A previous secret that cannot be read stops the relay at start, naming the file.
    @Test func anUnreadablePreviousSecretIsRefusedAtStart() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = try CommandRunner.secretFile(in: directory)
        let missing = directory.appendingPathComponent("retired.secret").path
        let result = try CommandRunner.run([
            "relay", "--port", "7000", "--secret-file", secret.path, "--previous-secret-file", missing,
            "--duration", "1",
        ])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("secret file \(missing) does not exist"), "\(result.standardError)")
    }
}
