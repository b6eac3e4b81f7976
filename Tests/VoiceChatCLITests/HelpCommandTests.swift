import Foundation
import Testing

/// `help` explains the commands there are, and refuses one that does not exist.
@Suite struct HelpCommandTests {
    @Test func helpForACommandThatDoesNotExistIsAUsageError() throws {
        let result = try CommandRunner.run(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("there is no command \"nosuch\""))
        #expect(result.standardError.contains("demo, listen, call, relay, token, join"))
    }

    /// The `--control` help names exactly the commands the socket takes (it once listed a
    /// `channels` command that did not exist).
    @Test func theControlOptionListsTheCommandsTheSocketTakes() throws {
        let result = try CommandRunner.run(["help", "listen"])
        let help = result.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let listed = try #require(
            help.firstRange(of: "JSON-line commands (").map { help[$0.upperBound...] }?.prefix { $0 != ";" })
        #expect(
            listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == [
                "mute", "unmute", "push-to-talk", "talk", "set-volume", "mute-player", "unmute-player", "start-channel",
                "stop-channel", "activate-channel", "set-max-delay", "stats", "subscribe", "unsubscribe", "help",
            ])
    }

    @Test func helpForACommandExplainsIt() throws {
        let result = try CommandRunner.run(["help", "join"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: voicechat join"))
    }
}
