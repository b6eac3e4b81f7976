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

    /// `--version` names the commit the command was built from and the libraries it runs with,
    /// as a bug report needs them (it printed only "0.1.0").
    @Test func versionNamesTheCommitAndTheLibraries() throws {
        let result = try CommandRunner.run(["--version"])
        #expect(result.status == 0)
        let text = result.standardOutput
        #expect(
            text.firstMatch(of: /voicechat [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)/) != nil,
            "\(text)")
        #expect(text.firstMatch(of: /libopus [0-9]+\.[0-9]+/) != nil, "\(text)")
        #expect(text.firstMatch(of: /alsa-lib [0-9]+\.[0-9]+/) != nil, "\(text)")
        #expect(text.firstMatch(of: /libsodium [0-9]+\.[0-9]+/) != nil, "\(text)")
    }

    @Test func helpForACommandExplainsIt() throws {
        let result = try CommandRunner.run(["help", "join"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: voicechat join"))
    }
}
