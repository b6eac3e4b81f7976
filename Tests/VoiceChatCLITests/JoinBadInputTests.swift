import Foundation
import Testing

/// `join` refuses what cannot work with one line that says what to do, and a non-zero exit.
@Suite struct JoinBadInputTests {
    private let secret = "0123456789abcdef0123456789abcdef"

    private func token(match: String, participant: String, secret: String, in directory: URL) throws -> String {
        let file = try CommandRunner.secretFile(secret, name: "secret-\(UUID().uuidString)", in: directory)
        return try CommandRunner.token(secretFile: file, match: match, participant: participant)
    }

    private func join(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(
            ["join", "--channel", "team", "--input", CommandRunner.fixture("speech-male.wav"), "--output", "/dev/null"]
                + arguments)
    }

    @Test func aTokenForAnotherMatchOrPlayerIsRefusedBeforeConnecting() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = try token(match: "other", participant: "alice", secret: secret, in: directory)
        let wrongMatch = try join(["--relay", "127.0.0.1:9", "--match", "arena", "--name", "alice", "--token", other])
        #expect(wrongMatch.status != 0)
        #expect(wrongMatch.standardError.contains("admits to match \"other\", not \"arena\""))
        let wrongName = try join(["--relay", "127.0.0.1:9", "--match", "other", "--name", "bob", "--token", other])
        #expect(wrongName.status != 0)
        #expect(wrongName.standardError.contains("use --name alice"))
        let garbage = try join(["--relay", "127.0.0.1:9", "--match", "m", "--name", "a", "--token", "nonsense"])
        #expect(garbage.status != 0)
        #expect(garbage.standardError.contains("is not a relay token"))
    }

    @Test func aTokenSignedWithAnotherSecretIsRefusedByTheRelay() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = try CommandRunner.secretFile(secret, in: directory)
        let port = TestPort.relayWithForgedToken.port
        let relay = try BackgroundCommand.relay(port: port, secretFile: secretFile, seconds: 30, directory: directory)
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15))
        let forged = try token(
            match: "arena", participant: "alice", secret: "another secret, also long enough", in: directory)
        let result = try join([
            "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", "alice", "--token", forged, "--duration",
            "20",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("refused to admit this player: bad token signature"))
        #expect(result.standardError.contains("ask the game server for a new token"))
        // The relay's log says whom it refused, from where and why, on a line of its own.
        let refusal = relay.standardError.split(separator: "\n").first { $0.contains("refused join") }
        #expect(refusal?.contains("participant=alice") == true, "\(relay.standardError)")
        // Over the signalling connection or UDP, whichever the join tried first.
        #expect(refusal.map { $0.contains("from=tcp 127.0.0.1:") || $0.contains("from=udp 127.0.0.1:") } == true)
        #expect(refusal?.contains("reason=bad token signature") == true)
    }

    @Test func aRelayThatDoesNotAnswerEndsTheRunWithWhatToCheck() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let valid = try token(match: "arena", participant: "alice", secret: secret, in: directory)
        // Nothing listens on this port of loopback.
        let port = TestPort.silentRelay.port
        let result = try join([
            "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", "alice", "--token", valid, "--duration", "30",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("did not answer within 2 s"))
        // A duration shorter than that does not turn the failure into a success.
        let short = try join([
            "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", "alice", "--token", valid, "--duration", "1",
        ])
        #expect(short.status != 0)
        #expect(short.standardError.contains("did not answer before the session ended"))
    }

    @Test func channelsMustBeGivenAndTheActiveOneAmongThem() throws {
        let noChannel = try CommandRunner.run([
            "join", "--relay", "127.0.0.1:9", "--match", "m", "--name", "a", "--token", "t",
        ])
        #expect(noChannel.status != 0)
        #expect(noChannel.standardError.contains("give at least one --channel"))
        let badActive = try join([
            "--relay", "127.0.0.1:9", "--match", "m", "--name", "a", "--token", "t", "--active", "all",
        ])
        #expect(badActive.status != 0)
        #expect(badActive.standardError.contains("--active all is not one of the --channel names"))
    }
}
