import Foundation
import Testing

/// What the stats say of the microphone once its source has ended.
@Suite struct InputMeterTests {
    /// A 2 s file as the microphone of a 5 s call: once it has ended the input meter reads silence
    /// (it held the file's last level for the rest of the call).
    @Test func theInputMeterFallsToSilenceWhenTheFileEnds() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = String(TestPort.endedInputListener.port)
        let stats = directory.appendingPathComponent("stats.jsonl")
        let tone = CommandRunner.fixture("tone-1k.wav")
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--port", port, "--input", tone, "--output", "/dev/null", "--duration", "5", "--stats-json",
                stats.path,
            ],
            directory: directory, label: "listener")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 10), "\(listener.standardError)")
        let call = try CommandRunner.run([
            "call", "127.0.0.1:\(port)", "--input", tone, "--output", "/dev/null", "--duration", "5",
        ])
        #expect(call.status == 0, "\(call.standardError)")
        #expect(listener.waitForExit(seconds: 15) == 0, "\(listener.standardError)")

        let levels = try String(contentsOf: stats, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["inputLevelDB"] as? Double
        }
        #expect(levels.count >= 4, "\(levels)")
        #expect(levels.contains { $0 > -20 }, "the tone was heard while it played: \(levels)")
        #expect((levels.last ?? 0) <= -100, "after the file ended: \(levels)")
    }
}
