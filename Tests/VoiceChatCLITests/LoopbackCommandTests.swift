import Foundation
import Testing
import VoiceCore
import VoiceDevices

@Suite struct LoopbackCommandTests {
    /// Pearson correlation of `count` samples of `a` from `aStart` with `b` from `bStart`.
    private func correlation(_ a: [Float], from aStart: Int, _ b: [Float], from bStart: Int, count: Int) -> Double {
        var sumA = 0.0, sumB = 0.0, sumAB = 0.0, sumAA = 0.0, sumBB = 0.0
        for index in 0..<count {
            let x = Double(a[aStart + index])
            let y = Double(b[bStart + index])
            sumA += x
            sumB += y
            sumAB += x * y
            sumAA += x * x
            sumBB += y * y
        }
        let n = Double(count)
        let covariance = sumAB - sumA * sumB / n
        return covariance / ((sumAA - sumA * sumA / n) * (sumBB - sumB * sumB / n)).squareRoot()
    }

    @Test func fileToFileLoopbackWritesWhatAListenerWouldHear() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputPath = directory.appendingPathComponent("heard.wav").path
        let inputPath = CommandRunner.fixture("speech-male.wav")

        let result = try CommandRunner.run([
            "loopback", "--input", inputPath, "--output", outputPath, "--frame-ms", "10",
        ])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("stopped: end of input"))
        #expect(result.standardOutput.contains("kbit/s actual"))
        #expect(result.standardOutput.contains("in [#"), "meters are printed")

        let input = try WAVAudio(contentsOfFile: inputPath)
        let heard = try WAVAudio(contentsOfFile: outputPath)
        #expect(heard.format == AudioFormat(sampleRate: 48_000, channels: 1))
        // Whole 10 ms frames of the input come out.
        #expect(heard.frameCount == input.frameCount / 480 * 480)

        // The codec delays the signal by its lookahead (6.5 ms for Opus VoIP at 48 kHz). The
        // delay is searched over one second of speech (1 s … 2 s into the clip) to keep the
        // test quick.
        let window = 48_000
        let scores = (0...600).map { shift in
            correlation(input.samples, from: window, heard.samples, from: window + shift, count: window)
        }
        let best = scores.indices.max { scores[$0] < scores[$1] } ?? 0
        #expect((200...400).contains(best), "codec delay \(best) samples")
        // Over the whole clip, shifted by that delay, the speech comes through clearly.
        let length = heard.frameCount - best
        #expect(correlation(input.samples, from: 0, heard.samples, from: best, count: length) > 0.8)
    }

    @Test func rejectsAFrameLengthOpusDoesNotHave() throws {
        let result = try CommandRunner.run([
            "loopback", "--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null", "--frame-ms", "7",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("--frame-ms must be one of 2.5, 5, 10, 20, 40, 60"))
    }

    @Test func rejectsADeviceAndAFileForTheSameSide() throws {
        let result = try CommandRunner.run([
            "loopback", "--capture", "default", "--input", "x.wav", "--output", "y.wav",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("--capture and --input exclude each other"))
    }

    @Test func anOutputThatIsTheInputFileIsRefusedAndTheInputKept() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("speech.wav").path
        try FileManager.default.copyItem(atPath: CommandRunner.fixture("speech-male.wav"), toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let link = directory.appendingPathComponent("same.wav").path
        try FileManager.default.linkItem(atPath: path, toPath: link)
        for output in [path, directory.path + "/./speech.wav", link] {
            let result = try CommandRunner.run(["loopback", "--input", path, "--output", output])
            #expect(result.status == 64)
            #expect(result.standardError.contains("is the --input file"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aMissingInputFileIsNamedInTheError() throws {
        let result = try CommandRunner.run(["loopback", "--input", "/nonexistent/speech.wav", "--output", "/dev/null"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("/nonexistent/speech.wav"))
        #expect(result.standardError.split(separator: "\n").count <= 2, "a short error, not a trace")
    }

    @Test func aMalformedInputFileSaysWhatIsWrong() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("not-audio.wav").path
        try Data("this is not a wav file at all".utf8).write(to: URL(fileURLWithPath: path))
        let result = try CommandRunner.run(["loopback", "--input", path, "--output", "/dev/null"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("RIFF"))
    }

    @Test func anUnknownCaptureDeviceIsNamedInTheError() throws {
        let result = try CommandRunner.run([
            "loopback", "--capture", "no_such_pcm_device", "--output", "/dev/null", "--duration", "1",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("no_such_pcm_device"))
    }
}
