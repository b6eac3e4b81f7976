import Foundation
import Testing

/// The C ABI (`voicechat.h` and `libvoicechat-c.so`): the header is the contract, compiled as C99
/// and C++ with every warning an error; every function it declares is exported and nothing else
/// `vc_` is; a game server written in C runs the relay, issues tokens, sees two real
/// `voicechat join` players and gives them orders; a game in C calls and matches with its own audio
/// and signalling; the example joins a match and hears as well as `voicechat join` does; and bad
/// input is refused by code and message everywhere.
@Suite struct CABITests {
    static let header = CommandRunner.packageRoot.appendingPathComponent("Sources/CVoiceChatABI/include/voicechat.h")
    static let libraryDirectory = CommandRunner.executable.deletingLastPathComponent()
    static let library = libraryDirectory.appendingPathComponent("libvoicechat-c.so")

    /// Runs a tool from PATH, or fails saying what to install.
    static func tool(_ name: String, _ arguments: [String]) throws -> CommandResult {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) {
                return try CommandRunner.run(arguments, executable: URL(fileURLWithPath: path))
            }
        }
        Issue.record("\(name) is missing: run scripts/setup.sh")
        throw CancellationError()
    }

    @Test func theHeaderCompilesAsStrictC99AndCxx() throws {
        let c = try Self.tool(
            "cc",
            ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-x", "c", Self.header.path])
        #expect(c.status == 0, "\(c.standardError)")
        let cxx = try Self.tool(
            "c++",
            ["-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-x", "c++", Self.header.path])
        #expect(cxx.status == 0, "\(cxx.standardError)")
    }

    @Test func everyDeclaredFunctionIsExportedAndNothingElse() throws {
        var text = try String(contentsOf: Self.header, encoding: .utf8)
        // Declarations only: comments mention functions too.
        while let start = text.range(of: "/*"), let end = text.range(of: "*/", range: start.upperBound..<text.endIndex)
        {
            text.removeSubrange(start.lowerBound..<end.upperBound)
        }
        let declared = Set(text.matches(of: /\b(vc_[a-z0-9_]+)\s*\(/).map { String($0.1) })
        let symbols = try Self.tool("nm", ["-D", "--defined-only", Self.library.path])
        #expect(symbols.status == 0, "\(symbols.standardError)")
        let exported = Set(
            symbols.standardOutput.split(separator: "\n").compactMap { line -> String? in
                let fields = line.split(separator: " ")
                guard fields.count == 3, fields[1] == "T", fields[2].hasPrefix("vc_") else { return nil }
                return String(fields[2])
            })
        #expect(declared.count >= 15, "\(declared.sorted())")
        #expect(
            declared.subtracting(exported).isEmpty, "declared, not exported: \(declared.subtracting(exported).sorted())"
        )
        #expect(
            exported.subtracting(declared).isEmpty, "exported, not declared: \(exported.subtracting(declared).sorted())"
        )
    }

    /// `scripts/build-sdk.sh` makes a folder that needs no Swift toolchain: its library names nothing
    /// under the toolchain, and the C game server and the example, built with pkg-config against
    /// the folder alone, run with the toolchain's folder hidden (an empty one mounted over it); the
    /// example hears a player speak as well as `voicechat join` does in the same match.
    @Test func theSDKRunsWithoutTheToolchain() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sdk = directory.appendingPathComponent("sdk")
        let built = try Self.tool(
            "bash", [CommandRunner.packageRoot.appendingPathComponent("scripts/build-sdk.sh").path, sdk.path])
        try #require(built.status == 0, "\(built.standardError)")
        let toolchain = try Self.tool(
            "bash", ["-c", "dirname \"$(dirname \"$(readlink -f \"$(command -v swift)\")\")\""]
        )
        .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(!toolchain.isEmpty)
        let library = sdk.appendingPathComponent("lib/libvoicechat.so").path
        let linked = try Self.tool("ldd", [library])
        #expect(!linked.standardOutput.contains(toolchain), "\(linked.standardOutput)")
        let flags = try Self.tool(
            "pkg-config", ["--cflags", "--libs", sdk.appendingPathComponent("lib/pkgconfig/voicechat.pc").path])
        try #require(flags.status == 0, "\(flags.standardError)")
        let linkFlags = flags.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
        var programs: [String: String] = [:]
        for source in ["Tests/CABI/relay_from_c.c", "examples/c/join_match.c"] {
            let program = directory.appendingPathComponent(
                URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
            ).path
            let build = try Self.tool(
                "cc",
                [
                    "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                    CommandRunner.packageRoot.appendingPathComponent(source).path, "-o", program,
                ]
                    + linkFlags)
            try #require(build.status == 0, "\(build.standardError)")
            programs[source] = program
        }
        // Only this process's view of the file system loses the toolchain.
        func hidden(_ program: String, _ arguments: [String] = []) -> [String] {
            let command = ([program] + arguments).map { "'\($0)'" }.joined(separator: " ")
            return ["-m", "sh", "-c", "mount -t tmpfs tmpfs '\(toolchain)' && exec \(command)"]
        }
        try runTheGameServer(
            executable: "/usr/bin/unshare", arguments: hidden(programs["Tests/CABI/relay_from_c.c"]!), in: directory)
        try hearTheFixtureAsJoinDoes(in: directory) { arguments in
            ("/usr/bin/unshare", hidden(programs["examples/c/join_match.c"]!, arguments))
        }
    }

    /// A relay; carol (`voicechat join`) and bob (the example, run by `example`) listen in a match;
    /// alice (`voicechat join`) speaks a fixture once both have joined. What bob heard scores within
    /// 0.1 PESQ-WB of what carol heard.
    private func hearTheFixtureAsJoinDoes(
        in directory: URL, example: ([String]) -> (executable: String, arguments: [String])
    ) throws {
        let python = CommandRunner.packageRoot.appendingPathComponent(".venv/bin/python").path
        try #require(
            FileManager.default.isExecutableFile(atPath: python), "the scorer is missing: run scripts/setup.sh")
        let port = TestPort.cExample.port
        let secret = try CommandRunner.secretFile(in: directory)
        let relay = try BackgroundCommand.relay(port: port, secretFile: secret, seconds: 60, directory: directory)
        defer { relay.stop() }
        try #require(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")
        func token(_ name: String) throws -> String {
            try CommandRunner.token(secretFile: secret, match: "arena", participant: name)
        }
        let said = CommandRunner.fixture("speech-male.wav")
        let bobHeard = directory.appendingPathComponent("bob-heard.wav").path
        let carolHeard = directory.appendingPathComponent("carol-heard.wav").path
        let silence = directory.appendingPathComponent("silence.wav").path
        try Self.writeSilence(seconds: 30, to: silence)
        let (executable, arguments) = example([
            "127.0.0.1", String(port), "arena", "bob", try token("bob"), "-", bobHeard, "22", "256",
        ])
        let bob = try BackgroundCommand(
            executable: executable, arguments: arguments, directory: directory, label: "bob")
        defer { bob.stop() }
        let carol = try joinProcess(
            "carol", token: try token("carol"), port: port, input: silence, output: carolHeard, seconds: 24,
            directory: directory)
        defer { carol.stop() }
        try #require(bob.waitForOutput("joined match arena", seconds: 15), "\(bob.standardOutput)\(bob.standardError)")
        try #require(carol.waitForOutput("joined", seconds: 15), "\(carol.standardError)")
        let alice = try joinProcess(
            "alice", token: try token("alice"), port: port, input: said, output: "/dev/null", seconds: nil,
            directory: directory)
        defer { alice.stop() }
        #expect(alice.waitForExit(seconds: 40) == 0, "\(alice.standardError)")
        #expect(bob.waitForExit(seconds: 30) == 0, "\(bob.standardOutput)\(bob.standardError)")
        #expect(carol.waitForExit(seconds: 30) == 0, "\(carol.standardError)")
        let scored = try CommandRunner.run(
            [
                CommandRunner.packageRoot.appendingPathComponent("bench/scoring/score.py").path, said, bobHeard,
                carolHeard, "--max-delay-ms", "10000",
            ],
            executable: URL(fileURLWithPath: python))
        try #require(scored.status == 0, "\(scored.standardError)")
        let scores = try scored.standardOutput.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["pesq_wb"]
                as? Double
        }
        let bobScore = try #require(scores.first ?? nil)
        let carolScore = try #require(scores.last ?? nil)
        print("PESQ-WB of what alice said: the C example heard \(bobScore), voicechat join \(carolScore)")
        #expect(bobScore > carolScore - 0.1, "PESQ-WB: the example heard \(bobScore), voicechat join \(carolScore)")
        #expect(bobScore > 3, "PESQ-WB: the example heard \(bobScore)")
    }

    /// `voicechat join` in match arena through the relay on `port`.
    private func joinProcess(
        _ name: String, token: String, port: Int, input: String, output: String, seconds: Int?, directory: URL
    ) throws -> BackgroundCommand {
        try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "join", "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", name, "--token", token,
                "--channel", "all", "--input", input, "--output", output, "--no-console",
            ] + (seconds.map { ["--duration", String($0)] } ?? []),
            directory: directory, label: name)
    }

    /// A 48 kHz mono 16-bit WAV file of silence.
    static func writeSilence(seconds: Int, to path: String) throws {
        let samples = seconds * 48_000
        var data = Data("RIFF".utf8)
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        append(UInt32(36 + samples * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(16)
        append16(1)
        append16(1)
        append(48_000)
        append(96_000)
        append16(2)
        append16(16)
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(samples * 2))
        data.append(Data(count: samples * 2))
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Two players in one C program, each an engine with the game's own audio and signalling: a
    /// call, a match with a channel, game data, positions and per-frame controls, and every
    /// function tried with NULLs, destroyed handles, wrong sizes, NaN, zero and huge values.
    @Test func aGameInCCallsAndMatchesWithItsOwnAudioAndSignalling() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = directory.appendingPathComponent("engine_from_c").path
        let build = try Self.tool(
            "cc",
            [
                "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I",
                Self.header.deletingLastPathComponent().path,
                CommandRunner.packageRoot.appendingPathComponent("Tests/CABI/engine_from_c.c").path, "-L",
                Self.libraryDirectory.path, "-lvoicechat-c", "-lm", "-Wl,-rpath,\(Self.libraryDirectory.path)", "-o",
                program,
            ])
        try #require(build.status == 0, "\(build.standardError)")
        let run = try BackgroundCommand(executable: program, arguments: [], directory: directory, label: "game")
        defer { run.stop() }
        #expect(run.waitForExit(seconds: 90) == 0, "\(run.standardOutput)\n\(run.standardError)")
        #expect(run.standardOutput.contains("all checks held"), "\(run.standardOutput)\n\(run.standardError)")
    }

    /// Runs a build of `relay_from_c.c` and two `voicechat join` players against the relay it
    /// starts; expects every check in it to hold.
    private func runTheGameServer(executable: String, arguments: [String], in directory: URL) throws {
        let server = try BackgroundCommand(
            executable: executable, arguments: arguments, directory: directory, label: "server")
        defer { server.stop() }
        try #require(server.waitForOutput("relay ", seconds: 15), "\(server.standardError)")
        let fields = server.standardOutput.split(separator: "\n")[0].split(separator: " ").map(String.init)
        try #require(fields.count == 6, "\(server.standardOutput)")
        let players = try ["alice": fields[3], "bob": fields[5]].map { name, token in
            try BackgroundCommand(
                executable: CommandRunner.executable.path,
                arguments: [
                    "join", "--relay", "127.0.0.1:\(fields[1])", "--match", "arena", "--name", name, "--token", token,
                    "--channel", "all", "--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null",
                    "--duration", "20", "--no-console",
                ],
                directory: directory, label: name)
        }
        defer { for player in players { player.stop() } }
        #expect(server.waitForExit(seconds: 40) == 0, "\(server.standardOutput)\n\(server.standardError)")
        #expect(server.standardOutput.contains("all checks held"), "\(server.standardOutput)\n\(server.standardError)")
    }

    @Test func aGameServerInCRunsTheRelay() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = directory.appendingPathComponent("relay_from_c").path
        let build = try Self.tool(
            "cc",
            [
                "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I",
                Self.header.deletingLastPathComponent().path,
                CommandRunner.packageRoot.appendingPathComponent("Tests/CABI/relay_from_c.c").path, "-L",
                Self.libraryDirectory.path, "-lvoicechat-c", "-Wl,-rpath,\(Self.libraryDirectory.path)", "-o", program,
            ])
        try #require(build.status == 0, "\(build.standardError)")
        try runTheGameServer(executable: program, arguments: [], in: directory)
    }
}
