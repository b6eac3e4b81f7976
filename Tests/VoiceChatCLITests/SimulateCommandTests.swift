import Foundation
import Testing
import VoiceCore
import VoiceDevices

@Suite struct SimulateCommandTests {
    @Test(arguments: ["engine", "baseline"])
    func writesWhatTheListenerHeardAndOneJSONLine(receiver: String) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first.wav").path
        let second = directory.appendingPathComponent("second.wav").path
        let arguments = [
            "simulate", "--input", CommandRunner.fixture("speech-male.wav"), "--loss", "0.1", "--jitter-ms", "20",
            "--seed", "3", "--receiver", receiver,
        ]
        let run = try CommandRunner.run(arguments + ["--output", first])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        let summary = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(summary?["receiver"] as? String == receiver)
        let statistics = summary?["statistics"] as? [String: Any]
        #expect((statistics?["packetsReceived"] as? Int ?? 0) > 500)
        let network = summary?["network"] as? [String: Any]
        #expect((network?["dropped"] as? Int ?? 0) > 30)

        // The line repeats the settings it ran with, rounds its numbers, and says null for what
        // this receiver does not measure instead of a 0 that reads as measured.
        let settings = summary?["settings"] as? [String: Any]
        #expect(settings?["loss"] as? Double == 0.1)
        #expect(settings?["jitterMilliseconds"] as? Double == 20)
        #expect(settings?["seed"] as? Int == 3)
        #expect(settings?["receiver"] as? String == receiver)
        #expect(settings?["bitrate"] as? Int == VoiceDefaults.bitrate)
        #expect(settings?["complexity"] as? Int == VoiceDefaults.complexity)
        #expect(settings?["frameMilliseconds"] as? Double == VoiceDefaults.frameDuration.milliseconds)
        #expect(lines[0].firstMatch(of: /\.[0-9]{4,}/) == nil, "a number with more than 3 decimals: \(lines[0])")
        let target = statistics?["targetDelayMilliseconds"]
        if receiver == "baseline" {
            #expect(target is NSNull)
            #expect(statistics?["recoveredByRedundancy"] is NSNull)
            #expect(statistics?["packetsLost"] is Int)
        } else {
            #expect((target as? Double ?? 0) > 0)
        }

        // 48 kHz mono, as long as the input plus the listener's tail, and the same bytes again
        // for the same seed.
        let heard = try WAVAudio(contentsOfFile: first)
        #expect(heard.format == .engineMono)
        #expect(heard.durationSeconds > 13.7)
        _ = try CommandRunner.run(arguments + ["--output", second])
        #expect(FileManager.default.contents(atPath: first) == FileManager.default.contents(atPath: second))
    }

    @Test func rejectsConditionsThatMakeNoSense() throws {
        let result = try CommandRunner.run([
            "simulate", "--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null", "--loss", "1.5",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("'--loss <0…1>': it must be 0…1."), "\(result.standardError)")
    }
}
