import Foundation
import Testing

/// `voicechat relay-admin` against a running `voicechat relay --admin-socket` with two players
/// joined through it: the lists show them, and a server mute, a move and a kick reach the players.
/// Real time: paced suite.
@Suite struct HostCallRelayAdminTests {
    @Test func theAdminListsMutesMovesAndKicksPlayersOfARunningRelay() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = try CommandRunner.secretFile(HostCallRelayJoinTests.secret, in: directory)
        let port = TestPort.relayAdmin.port
        let socket = directory.appendingPathComponent("relay.admin").path
        let relay = try BackgroundCommand.relay(
            port: port, secretFile: secretFile, seconds: 40, directory: directory,
            arguments: ["--admin-socket", socket])
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")

        func join(_ name: String) throws -> BackgroundCommand {
            let token = try CommandRunner.token(secretFile: secretFile, match: "arena", participant: name)
            return try BackgroundCommand(
                executable: CommandRunner.executable.path,
                arguments: [
                    "join", "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", name, "--token", token,
                    "--channel", "team", "--path", "relay", "--input", CommandRunner.fixture("speech-male.wav"),
                    "--output", directory.appendingPathComponent("\(name).wav").path, "--duration", "20",
                ],
                directory: directory, label: name)
        }
        func admin(_ arguments: String...) throws -> CommandResult {
            try CommandRunner.run(["relay-admin", "--socket", socket] + arguments)
        }
        let alice = try join("alice")
        let bob = try join("bob")
        defer {
            alice.stop()
            bob.stop()
        }
        #expect(alice.waitForOutput("path to bob: relay", seconds: 15), "\(alice.standardOutput)")

        let matches = try admin("matches")
        #expect(matches.status == 0 && matches.standardOutput == "arena: alice, bob\n", "\(matches)")
        // Both talk through it: the relay counts them as talking (it once said "0 talking").
        let stats = try admin("stats")
        let talking = stats.standardOutput.split(separator: ";").first.flatMap { line in
            line.split(separator: ",").last?.split(separator: " ").first.flatMap { Int($0) }
        }
        #expect(stats.standardOutput.hasPrefix("1 match, 2 players, "), "\(stats)")
        #expect((talking ?? 0) >= 1, "\(stats)")
        let players = try admin("--json", "players", "arena")
        #expect(players.status == 0, "\(players)")
        #expect(players.standardOutput.contains(#""player":"alice""#), "\(players)")
        #expect(players.standardOutput.contains(#""player":"bob""#), "\(players)")

        let mute = try admin("mute", "arena", "bob")
        #expect(mute.status == 0 && mute.standardOutput == "server-muted bob in arena\n", "\(mute)")
        let listed = try admin("players", "arena").standardOutput
        #expect(listed.contains("server-muted"), "\(listed)")
        // Channels by the names the players gave them (before: numbers only).
        #expect(listed.contains("channels team "), "\(listed)")
        #expect(bob.waitForOutput("the game server muted you", seconds: 5), "\(bob.standardOutput)")

        // A channel nobody has started is refused (before, it said it moved him, and he heard nobody).
        let nowhere = try admin("move", "arena", "alice", "nosuchchannel")
        #expect(nowhere.status == 1, "\(nowhere)")
        #expect(
            nowhere.standardError.contains(#"no player in match "arena" has channel "nosuchchannel" started"#),
            "\(nowhere)")
        #expect(!alice.standardOutput.contains("moved you to channel"), "\(alice.standardOutput)")
        let move = try admin("move", "arena", "alice", "team")
        #expect(move.status == 0 && move.standardOutput == "moved alice to channel team\n", "\(move)")
        #expect(alice.waitForOutput("the game server moved you to channel team", seconds: 5), "\(alice.standardOutput)")

        // The game server places bob for positional channels; his own reports no longer count.
        let place = try admin("position", "arena", "bob", "10", "0", "-4.5")
        #expect(place.status == 0 && place.standardOutput == "placed bob at (10.0, 0.0, -4.5) in arena\n", "\(place)")
        let placed = try admin("players", "arena")
        #expect(placed.standardOutput.contains("at (10.0, 0.0, -4.5) placed by the server"), "\(placed)")
        let release = try admin("release-position", "arena", "bob")
        #expect(release.status == 0, "\(release)")
        #expect(try !admin("players", "arena").standardOutput.contains("placed by the server"))

        let kick = try admin("kick", "arena", "bob")
        #expect(kick.status == 0 && kick.standardOutput == "kicked bob from arena\n", "\(kick)")
        let bobStatus = bob.waitForExit(seconds: 10)
        #expect(bobStatus != nil && bobStatus != 0, "\(bob.standardOutput)\(bob.standardError)")
        #expect(bob.standardError.contains("the relay removed this player from the match"), "\(bob.standardError)")
        #expect(try admin("matches").standardOutput == "arena: alice\n")

        // What the relay does not have is refused with exit 1 and the relay's reason.
        let unknown = try admin("kick", "arena", "carol")
        #expect(unknown.status == 1, "\(unknown)")
        #expect(unknown.standardError.contains(#"participant "carol" is not a member of match "arena""#), "\(unknown)")
    }

    @Test func aSocketNoRelayServesIsNamedWithWhatToDo() throws {
        let result = try CommandRunner.run(["relay-admin", "--socket", "/nonexistent/relay.admin", "matches"])
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                "cannot reach the relay's admin socket /nonexistent/relay.admin (No such file or directory); "
                    + "start the relay with --admin-socket"), "\(result.standardError)")
    }

    @Test func aCommandWithoutWhatItNeedsIsAUsageError() throws {
        let result = try CommandRunner.run(["relay-admin", "--socket", "/tmp/x", "move", "arena", "bob"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("move takes match, player, channel, not 2 arguments"))
        let position = try CommandRunner.run([
            "relay-admin", "--socket", "/tmp/x", "position", "arena", "bob", "1", "ten", "0",
        ])
        #expect(position.status == 64)
        #expect(position.standardError.contains("y \"ten\": it is not a number"), "\(position.standardError)")
        let unknown = try CommandRunner.run(["relay-admin", "--socket", "/tmp/x", "ban", "arena"])
        #expect(unknown.status == 64)
        #expect(unknown.standardError.contains("there is no admin command \"ban\""))
    }
}
