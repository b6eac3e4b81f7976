import Foundation
import Testing

/// Every `voicechat` command in the README's shell examples, run in order as a user would copy
/// them, made to fit this host and a bounded test: the example hosts become 127.0.0.1 on test ports,
/// sound devices become the fixtures and WAV files, long runs get a short `--duration`, and `$TOKEN`
/// is what the README's own `token` line printed. `listen` and `relay` run in the background until
/// the block after them is done. Each must exit 0 (`relay-admin` may also say the relay refused,
/// for a match nobody is in any more). Real time: paced suite.
@Suite struct HostCallReadmeExamplesTests {
    /// The README's `voicechat` lines, continuation lines joined, prompts and comments dropped.
    static func exampleCommands() throws -> [String] {
        let readme = try String(
            contentsOf: CommandRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var commands: [String] = []
        var inShell = false
        var pending = ""
        for rawLine in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if line.hasPrefix("```") {
                inShell = line == "```sh"
                continue
            }
            guard inShell else { continue }
            var text = pending + line.trimmingCharacters(in: .whitespaces)
            pending = ""
            if text.hasSuffix("\\") {
                pending = String(text.dropLast()) + " "
                continue
            }
            // A prompt naming the host ("alice$ "), then the command; a comment after two spaces.
            if let prompt = text.range(of: #"^\w+\$\s+"#, options: .regularExpression) { text.removeSubrange(prompt) }
            if let comment = text.range(of: #"\s{2,}#.*$"#, options: .regularExpression) {
                text.removeSubrange(comment)
            }
            guard text.hasPrefix("voicechat ") || text.hasPrefix("TOKEN=$(voicechat "), !text.contains("…") else {
                continue
            }
            commands.append(text)
        }
        return commands
    }

    /// Splits a command line as the shell would, for the quoting the README uses.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    @Test func everyExampleRunsAsWritten() throws {
        let commands = try Self.exampleCommands()
        // What the README shows, at least: a call, an echo test, a relay, a token, a join, the admin.
        for command in [
            "voicechat listen", "voicechat call", "voicechat echo-test", "voicechat relay ", "voicechat join",
            "voicechat relay-admin", "voicechat simulate", "voicechat loopback",
        ] {
            #expect(commands.contains { $0.contains(command) }, "the README has no \(command) example")
        }

        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("Fixtures"),
            withDestinationURL: CommandRunner.packageRoot.appendingPathComponent("Fixtures"))
        let secretFile = try CommandRunner.secretFile(in: directory).path
        let callPort = TestPort.readmeCall.port
        let relayPort = TestPort.readmeRelay.port
        let adminSocket = directory.appendingPathComponent("relay.admin").path
        var token = ""
        var background: [String: BackgroundCommand] = [:]
        defer { for process in background.values { process.stop() } }

        for (index, line) in commands.enumerated() {
            var arguments = Self.words(line)
            var assignsToken = false
            if arguments.first == "TOKEN=$(voicechat" {
                assignsToken = true
                arguments[0] = "voicechat"
                arguments[arguments.count - 1] = String(arguments[arguments.count - 1].dropLast())  // the ")"
            }
            arguments.removeFirst()  // "voicechat"
            arguments = Self.adapted(
                arguments, token: token, secretFile: secretFile, callPort: callPort, relayPort: relayPort,
                adminSocket: adminSocket,
                output: directory.appendingPathComponent("example-\(index).wav").path)
            let command = arguments.first ?? ""

            if command == "listen" || command == "relay" {
                // One of each at a time, as on the README's hosts.
                background[command]?.stop()
                let process = try BackgroundCommand(
                    executable: CommandRunner.executable.path, arguments: arguments, directory: directory,
                    label: "example-\(index)")
                background[command] = process
                let ready = command == "listen" ? "listening on" : "relay listening"
                #expect(process.waitForOutput(ready, seconds: 15), "\(line)\n\(process.standardError)")
                continue
            }
            let result = try CommandRunner.run(arguments, in: directory)
            let refusedByTheRelay =
                command == "relay-admin" && result.status == 1
                && result.standardError.contains("the relay refused")
            let report =
                "README example \(line)\nran as: voicechat \(arguments.joined(separator: " "))\n"
                + "exit \(result.status)\n\(result.standardOutput)\(result.standardError)"
            #expect(result.status == 0 || refusedByTheRelay, "\(report)")
            if assignsToken { token = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        #expect(!token.isEmpty, "the README's token example printed no token")
    }

    /// `arguments` made to run here: see the suite's description.
    static func adapted(
        _ arguments: [String], token: String, secretFile: String, callPort: Int, relayPort: Int, adminSocket: String,
        output: String
    ) -> [String] {
        let command = arguments.first ?? ""
        var adapted: [String] = []
        var index = 0
        var namesAudio = false
        while index < arguments.count {
            let word = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch word {
            case "192.0.2.7:7300": adapted.append("127.0.0.1:\(callPort)")
            case "192.0.2.9:7700": adapted.append("127.0.0.1:\(relayPort)")
            case "$TOKEN": adapted.append(token)
            case "--port":
                adapted += ["--port", String(command == "listen" ? callPort : relayPort)]
                index += 1
            case "/tmp/relay.admin": adapted.append(adminSocket)
            // Background commands do not run in the example's directory.
            case "relay.secret": adapted.append(secretFile)
            case "--duration":
                // At most 3 s of any session.
                adapted += ["--duration", String(min(Double(value ?? "3") ?? 3, 3))]
                index += 1
            case "--capture":
                adapted += ["--input", CommandRunner.fixture("speech-male.wav")]
                namesAudio = true
                index += 1
            case "--playback":
                adapted += ["--output", output]
                namesAudio = true
                index += 1
            case "--input", "--output":
                namesAudio = true
                adapted.append(word)
            case "heard.wav": adapted.append(output)
            default: adapted.append(word)
            }
            index += 1
        }
        let sessions: Set<String> = ["listen", "call", "echo-test", "join", "relay", "loopback", "demo"]
        if sessions.contains(command), !adapted.contains("--duration") {
            adapted += ["--duration", command == "listen" || command == "relay" ? "20" : "3"]
        }
        // The README's calls are alternatives against one listener: it answers each.
        if command == "listen" {
            adapted += ["--host", "127.0.0.1"]
            if !adapted.contains("--accept") { adapted += ["--accept", "0"] }
        }
        // Without a sound card here, the sessions that would use one read and write files.
        if ["listen", "call", "echo-test", "join"].contains(command), !namesAudio, !adapted.contains("--echo") {
            adapted += ["--input", CommandRunner.fixture("speech-female.wav"), "--output", output]
        }
        return adapted
    }
}
