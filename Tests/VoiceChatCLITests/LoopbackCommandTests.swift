import Foundation
import Testing
import VoiceCore

@Suite struct LoopbackCommandTests {
    /// Pearson correlation of `a` and `b` over their common length.
    private func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        let count = min(a.count, b.count)
        let x = a.prefix(count).map(Double.init)
        let y = b.prefix(count).map(Double.init)
        let meanX = x.reduce(0, +) / Double(count)
        let meanY = y.reduce(0, +) / Double(count)
        var sxy = 0.0
        var sxx = 0.0
        var syy = 0.0
        for index in 0..<count {
            sxy += (x[index] - meanX) * (y[index] - meanY)
            sxx += (x[index] - meanX) * (x[index] - meanX)
            syy += (y[index] - meanY) * (y[index] - meanY)
        }
        return sxy / (sxx * syy).squareRoot()
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

        // The codec delays the signal by its lookahead (6.5 ms for Opus VoIP at 48 kHz);
        // after that shift the speech must come through clearly.
        let best =
            (0...600).max { shiftA, shiftB in
                correlation(input.samples[...], heard.samples[shiftA...])
                    < correlation(input.samples[...], heard.samples[shiftB...])
            } ?? 0
        #expect((200...400).contains(best), "codec delay \(best) samples")
        #expect(correlation(input.samples[...], heard.samples[best...]) > 0.9)
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
