import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceTestHarness

/// `voicechat echo-test` against `voicechat listen --echo`, WAV in and out: the speech comes back,
/// and the delay it reports is the one in the audio. Real time: paced suite.
@Suite struct HostCallEchoTestTests {
    @Test func theEchoComesBackAndItsDelayIsTheOneInTheAudio() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.echoListener.port
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--host", "127.0.0.1", "--port", String(port), "--name", "echo", "--echo", "--accept", "0",
                "--duration", "30",
            ],
            directory: directory, label: "echo")
        defer { listener.stop() }
        #expect(listener.waitForOutput("sending callers back what they say", seconds: 15), "\(listener.standardError)")

        let back = directory.appendingPathComponent("back.wav").path
        let watch = MachineStallWatch()
        let result = try CommandRunner.run([
            "echo-test", "127.0.0.1:\(port)", "--input", CommandRunner.fixture("speech-male.wav"), "--output", back,
            "--duration", "6",
        ])
        let machine = watch.finish()
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let line = try #require(
            result.standardOutput.split(separator: "\n").first { $0.hasPrefix("echo test: you heard yourself ") },
            "\(result.standardOutput)")
        let reported = try #require(Double(line.split(separator: " ")[5]), "\(line)")

        // The delay in the audio, to the millisecond: the lag of the highest correlation of the
        // samples sent and those that came back, over a second of speech.
        let sent = try WAVAudio(contentsOfFile: CommandRunner.fixture("speech-male.wav")).samples
        let heard = try WAVAudio(contentsOfFile: back).samples
        let window = 48_000..<96_000
        var best = (lag: 0, score: -Double.infinity)
        for lag in stride(from: 0, to: 300 * 48, by: 48) where window.upperBound + lag <= heard.count {
            var score = 0.0
            for index in window { score += Double(sent[index]) * Double(heard[index + lag]) }
            if score > best.score { best = (lag, score) }
        }
        let inAudio = Double(best.lag) / 48
        withKnownIssue("the machine did not keep real time: \(machine)", isIntermittent: true) {
            #expect(abs(reported - inAudio) <= 10, "reported \(reported) ms, in the audio \(inAudio) ms\n\(line)")
            #expect((20...300).contains(inAudio), "\(inAudio) ms")
        } when: {
            !machine.keptRealTime
        }
    }

    /// A listener that does not echo (it plays a tone back) fails the test: exit 1, saying what to check.
    @Test func aVoiceThatDoesNotComeBackFailsTheTest() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = TestPort.notEchoingListener.port
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--host", "127.0.0.1", "--port", String(port), "--name", "tone", "--input",
                CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null", "--duration", "30",
            ],
            directory: directory, label: "tone")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 15), "\(listener.standardError)")
        let result = try CommandRunner.run([
            "echo-test", "127.0.0.1:\(port)", "--input", CommandRunner.fixture("speech-male.wav"), "--output",
            "/dev/null", "--duration", "5",
        ])
        // Before, it said so and exited 0, as a test that passed does.
        #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
        #expect(
            result.standardError.contains("echo test failed: your voice did not come back recognisably"),
            "\(result.standardError)")
    }

    @Test func echoTakesNoDeviceOrFile() throws {
        let result = try CommandRunner.run(["listen", "--echo", "--input", CommandRunner.fixture("speech-male.wav")])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--echo sends callers back what they say and uses no sound device"))
    }
}
