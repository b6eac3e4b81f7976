import Foundation
import Testing

/// Runs the built `voicechat` executable as a user would and captures what it printed.
struct CommandResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

enum CommandRunner {
    /// The package's root, found from this file's location.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `voicechat` is built next to the test binary, which is this process.
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // The test binary may sit inside a `.xctest` bundle folder.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("voicechat").path),
            directory.path != "/"
        {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("voicechat")
    }()

    static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    /// Runs `executable` (the built one unless given) with `arguments`; `environment` adds to this
    /// process's, `removing` takes names out of it, and `directory` is where it runs.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
        executable: URL = executable, in directory: URL? = nil
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for name in removing { merged[name] = nil }
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes before waiting so a chatty child cannot fill one and stall.
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }

    /// Writes `contents` to a secret file `name` in `directory`, readable by its owner only.
    static func secretFile(
        _ contents: String = "0123456789abcdef0123456789abcdef", name: String = "relay.secret", in directory: URL
    ) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return url
    }

    /// `voicechat token` for `participant` in `match`, signed with `secretFile`; expects it to succeed.
    static func token(
        secretFile: URL, match: String, participant: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let result = try run([
            "token", "--secret-file", secretFile.path, "--match", match, "--participant", participant,
        ])
        #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("voicechat-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
