import Foundation
import Testing

/// `help` explains the commands there are, and refuses one that does not exist.
@Suite struct HelpCommandTests {
    @Test func helpForACommandThatDoesNotExistIsAUsageError() throws {
        let result = try CommandRunner.run(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("there is no command \"nosuch\""))
        #expect(result.standardError.contains("demo, listen, call, echo-test, relay, relay-admin, token, join"))
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
                "mute", "unmute", "push-to-talk", "talk", "set-volume", "mute-player", "unmute-player",
                "set-player-volume",
                "start-channel",
                "stop-channel", "activate-channel", "set-max-delay", "set-speech-processing", "set-position",
                "set-proximity", "stats", "subscribe",
                "unsubscribe", "help",
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

    /// Every example in every command's help survives an 80-column terminal whole, each line of it
    /// a command or a continuation of one: a line wrapped in the middle of a command would run
    /// something else when pasted (they did, in listen, call, join and simulate).
    @Test func examplesAreNotWrappedInTheMiddleOfACommand() throws {
        for command in [
            "demo", "listen", "call", "echo-test", "relay", "relay-admin", "token", "join", "devices", "loopback",
            "simulate",
        ] {
            let result = try CommandRunner.run(["help", command], environment: ["COLUMNS": "80"])
            let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            // Every example can be pasted: none sits in the prose, where the help wraps it anywhere.
            for line in lines where !line.hasPrefix("  ") && !line.hasPrefix("USAGE") {
                #expect(!line.contains("voicechat \(command) --"), "\(command): \"\(line)\" is wrapped as prose")
            }
            guard let start = lines.firstIndex(where: { $0 == "Examples:" || $0 == "Example:" }) else { continue }
            let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
            #expect(!examples.isEmpty, "\(command)")
            var continues = false
            for line in examples {
                let expected = continues ? "      --" : "  voicechat "
                #expect(line.hasPrefix(expected), "\(command): \"\(line)\" should start with \"\(expected)\"")
                #expect(line.count < 80, "\(command): \"\(line)\"")
                continues = line.hasSuffix(" \\")
            }
            #expect(!continues, "\(command): the last example ends with a continuation")
        }
    }

    /// The help shows values as they are typed: `auto`, not `automatic`; `20`, not `20.0`; and
    /// `--path` says which paths each command takes instead of listing every path for all.
    @Test func defaultsAndPathsReadAsTheyAreTyped() throws {
        for command in ["listen", "call", "join"] {
            let help = try CommandRunner.run(["help", command]).standardOutput
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(!help.contains("default: automatic"), "\(command)")
            #expect(!help.contains("20.0"), "\(command)")
            #expect(help.contains("default: auto"), "\(command)")
            #expect(help.contains("(default: 20)"), "\(command)")
            #expect(!help.contains("values: auto, direct, app, relay, relay-tcp"), "\(command)")
            #expect(help.contains("listen, call and echo-test: auto"), "\(command)")
            #expect(help.contains("join: auto (direct UDP, else through the relay), direct, relay or relay-tcp"))
        }
    }

    @Test func helpForACommandExplainsIt() throws {
        let result = try CommandRunner.run(["help", "join"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: voicechat join"))
    }

    /// `--frame-ms` takes different lengths in different commands, and each says why.
    @Test func eachCommandSaysWhyItTakesTheFrameLengthsItTakes() throws {
        for (command, reason) in [
            ("call", "the lengths a call's delay budget holds"), ("loopback", "every length Opus has"),
            ("simulate", "the long frames a call does not take"),
        ] {
            let help = try CommandRunner.run(["help", command]).standardOutput.split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            #expect(help.contains(reason), "voicechat help \(command) does not say \"\(reason)\"")
        }
    }

    /// Shell completion comes from the argument parser; the README says how to install it.
    @Test func aCompletionScriptIsGenerated() throws {
        let result = try CommandRunner.run(["--generate-completion-script", "bash"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("_voicechat"))
        let readme = try String(
            contentsOf: CommandRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("--generate-completion-script"))
    }
}
