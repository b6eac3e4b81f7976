import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceSimulation

@Suite("WAVFileInput")
struct WAVFileInputTests {
    @Test("on demand, a 48 kHz file is delivered bit-exact, then the input is exhausted")
    func onDemandFixtureIsBitExact() throws {
        let path = WAVFileFixtures.path("speech-male.wav")
        let reference = try WAVAudio(contentsOfFile: path)
        let input = try WAVFileInput(path: path, pacing: .onDemand)
        #expect(input.format == .engineMono)
        #expect(input.frameCount == reference.frameCount)
        #expect(!input.isExhausted)
        let delivered = WAVFileFixtures.drain(input)
        #expect(delivered == reference.samples)
        #expect(input.isExhausted)
        #expect(input.statistics.deviceFrames == reference.frameCount)
    }

    @Test("on demand, every read but the last returns all frames asked for")
    func onDemandReadsAreFull() throws {
        let input = try WAVFileInput(path: WAVFileFixtures.path("tone-1k.wav"), pacing: .onDemand)
        var buffer = [Float](repeating: 0, count: 1_000)
        var counts: [Int] = []
        while case let frames = buffer.withUnsafeMutableBufferPointer({ input.read(into: $0) }), frames > 0 {
            counts.append(frames)
        }
        #expect(counts.dropLast().allSatisfy { $0 == 1_000 })
        #expect(counts.reduce(0, +) == input.frameCount)
        let remainder = input.frameCount % 1_000
        #expect(counts.last == (remainder == 0 ? 1_000 : remainder))
    }

    @Test(
        "files at 16 and 44.1 kHz come out at 48 kHz, as long, at the same pitch and time-aligned",
        arguments: [16_000, 44_100])
    func otherRatesAreResampledInTime(rate: Int) throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("tone-\(rate).wav")
        let seconds = 1.5
        let frames = Int(Double(rate) * seconds)
        let tone = TestSignal.sine(frequency: 440, amplitude: 0.5, frames: frames, sampleRate: rate)
        try WAVAudio(format: AudioFormat(sampleRate: rate, channels: 1), sampleFormat: .float32, samples: tone)
            .write(toFile: path)

        let input = try WAVFileInput(path: path, pacing: .onDemand)
        #expect(input.fileFormat.sampleRate == rate)
        let output = WAVFileFixtures.drain(input)
        let expectedFrames = Int(seconds * 48_000)
        #expect(abs(output.count - expectedFrames) <= 3)
        #expect(abs(WAVFileFixtures.estimatedFrequency(output, sampleRate: 48_000) - 440) < 3)
        // Half an output sample early or late would show as a deviation of about 0.014 at 440 Hz.
        let deviation = WAVFileFixtures.deviationFromSine(
            output, frequency: 440, amplitude: 0.5, sampleRate: 48_000, range: 200..<(output.count - 200))
        #expect(deviation < 0.005)
    }

    @Test("a stereo file read as mono is the average of its channels")
    func stereoIsDownmixed() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("stereo.wav")
        let stereo = WAVFileFixtures.busySignal(frames: 4_800, channels: 2)
        try WAVAudio(format: AudioFormat(sampleRate: 48_000, channels: 2), sampleFormat: .float32, samples: stereo)
            .write(toFile: path)

        let input = try WAVFileInput(path: path, channels: 1, pacing: .onDemand)
        let mono = WAVFileFixtures.drain(input)
        #expect(mono.count == 4_800)
        let average: [Float] = (0..<4_800).map { frame in (stereo[2 * frame] + stereo[2 * frame + 1]) / 2 }
        #expect(mono == average)
    }

    @Test("a mono file read as stereo has the same samples in both channels")
    func monoIsUpmixed() throws {
        let path = WAVFileFixtures.path("tone-1k.wav")
        let reference = try WAVAudio(contentsOfFile: path)
        let input = try WAVFileInput(path: path, channels: 2, pacing: .onDemand)
        #expect(input.format == AudioFormat(sampleRate: 48_000, channels: 2))
        let stereo = WAVFileFixtures.drain(input)
        #expect(stereo.count == 2 * reference.frameCount)
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let right = stride(from: 1, to: stereo.count, by: 2).map { stereo[$0] }
        #expect(left == reference.samples)
        #expect(right == reference.samples)
    }

    @Test("paced in real time, one second of audio takes about a second and arrives whole")
    func realTimeIsPacedAndLossless() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("one-second.wav")
        let source = WAVFileFixtures.busySignal(frames: 48_000)
        try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: source).write(toFile: path)

        let input = try WAVFileInput(path: path, pacing: .realTime)
        #expect(input.read(into: UnsafeMutableBufferPointer(start: nil, count: 0)) == 0)
        let started = Date()
        try input.start()
        var received: [Float] = []
        var buffer = [Float](repeating: 0, count: 960)
        while !input.isExhausted, Date().timeIntervalSince(started) < 10 {
            let frames = buffer.withUnsafeMutableBufferPointer { input.read(into: $0) }
            received.append(contentsOf: buffer[0..<frames])
            if frames == 0 { usleep(5_000) }
        }
        let elapsed = Date().timeIntervalSince(started)
        input.stop()

        #expect(input.isExhausted)
        #expect(elapsed > 0.7 && elapsed < 3, "1 s of audio took \(elapsed) s")
        #expect(input.statistics.ringStarvedFrames == 0)
        #expect(received == source)
    }

    @Test("stopping and starting again resumes where the input was")
    func realTimeResumes() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("short.wav")
        let source = WAVFileFixtures.busySignal(frames: 9_600)
        try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: source).write(toFile: path)

        let input = try WAVFileInput(path: path, pacing: .realTime)
        try input.start()
        usleep(60_000)
        input.stop()
        try input.start()
        try input.start()
        var received: [Float] = []
        var buffer = [Float](repeating: 0, count: 960)
        let started = Date()
        while !input.isExhausted, Date().timeIntervalSince(started) < 10 {
            let frames = buffer.withUnsafeMutableBufferPointer { input.read(into: $0) }
            received.append(contentsOf: buffer[0..<frames])
            if frames == 0 { usleep(5_000) }
        }
        input.stop()
        #expect(received == source)
    }

    @Test("a malformed file is reported with its path")
    func malformedFileIsReported() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("not-audio.wav")
        try Data("this is plain text, not a RIFF file at all".utf8).write(to: URL(fileURLWithPath: path))

        let error = #expect(throws: AudioDeviceError.self) { try WAVFileInput(path: path, pacing: .onDemand) }
        #expect(error?.code == .malformedFile)
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("RIFF") == true)
    }

    @Test("a missing file is reported as not found, with its path")
    func missingFileIsReported() throws {
        let path = "/nonexistent-directory/missing.wav"
        let error = #expect(throws: AudioDeviceError.self) { try WAVFileInput(path: path, pacing: .realTime) }
        #expect(error?.code == .notFound)
        #expect(error?.description.contains(path) == true)
    }

    @Test("nonsensical arguments are refused")
    func invalidArgumentsAreRefused() {
        let path = WAVFileFixtures.path("tone-1k.wav")
        #expect(
            throws: AudioDeviceError(
                .invalidArgument, device: path, reason: "0 channels requested; a file input delivers 1…8", isFile: true)
        ) {
            try WAVFileInput(path: path, channels: 0, pacing: .onDemand)
        }
        let error = #expect(throws: AudioDeviceError.self) {
            try WAVFileInput(path: path, pacing: .realTime, periodFrames: 0)
        }
        #expect(error?.code == .invalidArgument)
    }
}
