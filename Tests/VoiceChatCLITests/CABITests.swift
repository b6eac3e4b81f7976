import Foundation
import Testing

/// The C ABI (`voicechat.h` and `libvoicechat-c.so`): the header is the contract, compiled as C99
/// and C++ with every warning an error; every function it declares is exported and nothing else
/// `vc_` is; and a game server written in C runs the relay, issues tokens, sees two real
/// `voicechat join` players and gives them orders, with bad input refused by code and message.
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
    /// under the toolchain, and the C game server, built with pkg-config against the folder alone,
    /// runs with the toolchain's folder hidden (an empty one mounted over it).
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
        let library = sdk.appendingPathComponent("lib/libvoicechat-c.so").path
        let linked = try Self.tool("ldd", [library])
        #expect(!linked.standardOutput.contains(toolchain), "\(linked.standardOutput)")
        let flags = try Self.tool(
            "pkg-config", ["--cflags", "--libs", sdk.appendingPathComponent("lib/pkgconfig/voicechat.pc").path])
        try #require(flags.status == 0, "\(flags.standardError)")
        let program = directory.appendingPathComponent("relay_from_c").path
        let build = try Self.tool(
            "cc",
            [
                "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                CommandRunner.packageRoot.appendingPathComponent("Tests/CABI/relay_from_c.c").path, "-o", program,
            ]
                + flags.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init))
        try #require(build.status == 0, "\(build.standardError)")
        // Only this process's view of the file system loses the toolchain.
        let hidden = "mount -t tmpfs tmpfs '\(toolchain)' && exec '\(program)'"
        try runTheGameServer(
            executable: "/usr/bin/unshare", arguments: ["-m", "sh", "-c", hidden], in: directory)
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
