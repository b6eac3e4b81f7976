import Foundation
import Testing

/// The observers as the commands run them, through `demo` (a relay and two players in one process).
@Suite struct DemoObservationTests {
    /// `--log-level`: debug adds each second's statistics per player and the embedded relay's
    /// log; notice keeps the start and the summary; warning prints nothing when nothing goes wrong.
    @Test func theLogLevelChoosesWhatTheSessionPrints() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func demo(_ level: String) throws -> CommandResult {
            let result = try CommandRunner.run([
                "demo", "--duration", "2", "--output-directory", directory.path, "--log-level", level,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            return result
        }
        let debug = try demo("debug")
        #expect(debug.standardOutput.contains("debug: bob: path relay, rtt"), "\(debug.standardOutput)")
        #expect(debug.standardOutput.contains("alice says"))
        #expect(debug.standardError.contains("participant=alice [VoiceRelay] joined"), "\(debug.standardError)")

        let notice = try demo("notice")
        #expect(notice.standardOutput.contains("alice heard bob: path relay"), "\(notice.standardOutput)")
        #expect(!notice.standardOutput.contains("alice says"), "\(notice.standardOutput)")
        #expect(!notice.standardOutput.contains("debug:"))

        let warning = try demo("warning")
        #expect(warning.standardOutput.isEmpty, "\(warning.standardOutput)")
        #expect(warning.standardError.isEmpty, "\(warning.standardError)")

        let wrong = try CommandRunner.run(["demo", "--log-level", "loud"])
        #expect(wrong.status == 64)
        #expect(wrong.standardError.contains("--log-level"), "\(wrong.standardError)")
    }

    @Test func statsFileAndControlSocketRunWithoutTouchingStandardOutput() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stats = directory.appendingPathComponent("stats.jsonl").path
        let summary = directory.appendingPathComponent("summary.json").path
        let socket = "/tmp/vc-cli-\(UInt32.random(in: 0...UInt32.max)).sock"
        let result = try CommandRunner.run([
            "demo", "--duration", "2.5", "--output-directory", directory.path, "--stats-json", stats, "--control",
            socket, "--summary-json", summary,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        // Not a terminal: no console, so the meter lines are printed instead.
        #expect(result.standardOutput.contains("alice says"))
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 2)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["participants"] is [Any])
            #expect(object["inputLevelDB"] is NSNumber)
        }
        let last = try #require(
            try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        let participant = try #require((last["participants"] as? [[String: Any]])?.first)
        #expect(participant["participant"] as? String == "bob")
        #expect(participant["path"] as? String == "relay")
        // The socket is removed at the end.
        #expect(!FileManager.default.fileExists(atPath: socket))
        // The summary: one object, with what alice received from bob.
        let closing = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any])
        #expect(closing["kind"] as? String == "match")
        // Whose summary and of what, each under its own name (before: "session", the other party in a call).
        #expect(closing["participant"] as? String == "alice")
        #expect(closing["match"] as? String == "demo")
        #expect(closing["session"] == nil)
        #expect(closing["ending"] as? String == "duration reached")
        #expect((closing["seconds"] as? Double).map { $0 >= 2.5 } == true)
        let heard = try #require((closing["participants"] as? [[String: Any]])?.first)
        #expect(heard["participant"] as? String == "bob")
        let received = (heard["streams"] as? [String: [String: Any]])?.values.first?["receive"] as? [String: Any]
        #expect((received?["packetsReceived"] as? Int).map { $0 > 50 } == true, "\(heard)")
    }

    /// With the stats on standard output, every line there is JSON; what people read goes to
    /// standard error.
    @Test func statsOnStandardOutputAreAloneThere() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CommandRunner.run([
            "demo", "--duration", "2.5", "--output-directory", directory.path, "--stats-json", "-",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count >= 2)
        for line in lines {
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any],
                "not a JSON line on standard output: \(line)")
        }
        #expect(result.standardError.contains("relay listening"))
        #expect(result.standardError.contains("alice says"))
    }

    @Test func badObservationOptionsAreRefusedWithWhatToDo() throws {
        let long = "/tmp/" + String(repeating: "s", count: 110)
        let result = try CommandRunner.run(["demo", "--control", long])
        #expect(result.status != 0)
        #expect(result.standardError.contains("at most 107"))
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try CommandRunner.run([
            "demo", "--duration", "1", "--output-directory", directory.path, "--stats-json",
            "/nonexistent-dir/stats.jsonl",
        ])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("--stats-json: cannot write stats to /nonexistent-dir/stats.jsonl"))
    }
}

/// `demo` from a folder outside the project, with the binary copied out of the build as a user
/// might install it.
@Suite struct DemoOutsideTheProjectTests {
    /// A copy of the built binary in a folder of its own, run from that folder.
    private static func installedCopy(in directory: URL) throws -> URL {
        let copy = directory.appendingPathComponent("voicechat")
        try FileManager.default.copyItem(at: CommandRunner.executable, to: copy)
        return copy
    }

    @Test func withoutItsClipsItSaysWhereItLookedAndWhatToPass() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try Self.installedCopy(in: directory)
        let result = try CommandRunner.run(
            ["demo", "--duration", "1"], removing: ["VOICECHAT_ROOT"], executable: copy, in: directory)
        #expect(result.status == 1)
        #expect(result.standardError.contains("looked in $VOICECHAT_ROOT/Fixtures, ./Fixtures"))
        #expect(result.standardError.contains("pass --fixtures"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("demo-output").path))

        let wrong = try CommandRunner.run(["demo", "--fixtures", directory.path], executable: copy, in: directory)
        #expect(wrong.status == 64)
        #expect(wrong.standardError.contains("--fixtures \(directory.path) holds no speech-male.wav"))
    }

    @Test func givenItsClipsItRunsAndSaysWhatToTryNext() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try Self.installedCopy(in: directory)
        let fixtures = CommandRunner.packageRoot.appendingPathComponent("Fixtures").path
        let result = try CommandRunner.run(
            ["demo", "--duration", "2", "--fixtures", fixtures], removing: ["VOICECHAT_ROOT"], executable: copy,
            in: directory)
        #expect(result.status == 0, "\(result.standardError)")
        let output = directory.appendingPathComponent("demo-output")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("alice-heard.wav").path))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("bob-heard.wav").path))
        // Without the project around it, the scorer's setup is pointed at by name, not by a path
        // that does not exist here.
        #expect(result.standardOutput.contains("scripts/setup.sh in the project's folder"))
        #expect(result.standardOutput.split(separator: "\n").last?.hasPrefix("next: a call between two hosts") == true)
    }
}
