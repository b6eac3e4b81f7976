import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceSimulation

@Suite("WAVFileOutput")
struct WAVFileOutputTests {
    /// Writes `samples` in uneven pieces, as an engine with varying frame sizes would.
    private func writeOnDemand(_ samples: [Float], to output: WAVFileOutput) {
        let channels = output.format.channels
        var offset = 0
        var piece = 1
        while offset < samples.count {
            let count = min(piece * 97 * channels, samples.count - offset)
            let taken = samples[offset..<offset + count].withUnsafeBufferPointer { output.write($0) }
            #expect(taken == count / channels)
            offset += count
            piece = piece % 50 + 1
        }
    }

    @Test("on demand, float32 output reads back bit-exact", arguments: [1, 2])
    func onDemandFloatRoundTrip(channels: Int) throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out.wav")
        let samples = WAVFileFixtures.busySignal(frames: 30_000, channels: channels)
        let output = try WAVFileOutput(path: path, channels: channels, sampleFormat: .float32, pacing: .onDemand)
        writeOnDemand(samples, to: output)
        output.stop()

        let written = try WAVAudio(contentsOfFile: path)
        #expect(written.format == AudioFormat(sampleRate: 48_000, channels: channels))
        #expect(written.sampleFormat == .float32)
        #expect(written.samples == samples)
        #expect(output.statistics.deviceFrames == 30_000)
        #expect(output.writeError == nil)
    }

    @Test("on demand, int16 output reads back within one step of 16-bit quantisation")
    func onDemandInt16RoundTrip() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out.wav")
        let samples = WAVFileFixtures.busySignal(frames: 30_000)
        let output = try WAVFileOutput(path: path, pacing: .onDemand)
        writeOnDemand(samples, to: output)
        output.stop()

        let written = try WAVAudio(contentsOfFile: path)
        #expect(written.sampleFormat == .int16)
        #expect(written.samples.count == samples.count)
        let worst = zip(written.samples, samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 1 / 32_768)
    }

    @Test("the file is valid at every stop, and writing after a stop continues it")
    func validAtEveryStop() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out.wav")
        let first = WAVFileFixtures.busySignal(frames: 1_000)
        let second = Array(first.reversed())
        let output = try WAVFileOutput(path: path, sampleFormat: .float32, pacing: .onDemand)
        #expect(try WAVAudio(contentsOfFile: path).frameCount == 0)
        _ = first.withUnsafeBufferPointer { output.write($0) }
        output.stop()
        #expect(try WAVAudio(contentsOfFile: path).samples == first)
        _ = second.withUnsafeBufferPointer { output.write($0) }
        output.stop()
        #expect(try WAVAudio(contentsOfFile: path).samples == first + second)
    }

    @Test("paced in real time, what is written is what reaches the file", arguments: [SampleFormat.float32, .int16])
    func realTimeRoundTrip(sampleFormat: SampleFormat) throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out.wav")
        let samples = WAVFileFixtures.busySignal(frames: 48_000)
        let output = try WAVFileOutput(path: path, sampleFormat: sampleFormat, pacing: .realTime)
        var offset = samples.withUnsafeBufferPointer { output.write($0) }
        let started = Date()
        try output.start()
        while offset < samples.count, Date().timeIntervalSince(started) < 10 {
            let taken = samples[offset...].withUnsafeBufferPointer { output.write($0) }
            offset += taken
            if taken == 0 { usleep(5_000) }
        }
        output.stop()
        let elapsed = Date().timeIntervalSince(started)

        #expect(offset == samples.count)
        #expect(elapsed > 0.7 && elapsed < 3, "1 s of audio took \(elapsed) s")
        #expect(output.statistics.ringStarvedFrames == 0)
        #expect(output.statistics.xruns == 0)
        let written = try WAVAudio(contentsOfFile: path)
        #expect(written.samples.count == samples.count)
        let worst = zip(written.samples, samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= (sampleFormat == .float32 ? 0 : 1 / 32_768))
    }

    @Test("paced in real time, a late engine is heard as silence and counted")
    func realTimeStarvationIsSilence() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out.wav")
        let output = try WAVFileOutput(path: path, sampleFormat: .float32, pacing: .realTime)
        try output.start()
        let started = Date()
        while output.statistics.deviceFrames < 4_800, Date().timeIntervalSince(started) < 10 { usleep(5_000) }
        let tail = [Float](repeating: 0.25, count: 480)
        #expect(tail.withUnsafeBufferPointer { output.write($0) } == 480)
        output.stop()

        let written = try WAVAudio(contentsOfFile: path)
        let starved = output.statistics.ringStarvedFrames
        #expect(starved >= 4_800)
        #expect(written.frameCount == starved + 480)
        #expect(written.samples.prefix(starved).allSatisfy { $0 == 0 })
        #expect(written.samples.suffix(480).allSatisfy { $0 == 0.25 })
    }

    @Test("a 16 kHz file gets the audio resampled, as long and time-aligned")
    func resampledOutput() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out16k.wav")
        let tone = TestSignal.sine(frequency: 440, amplitude: 0.5, frames: 48_000)
        let output = try WAVFileOutput(path: path, sampleRate: 16_000, sampleFormat: .float32, pacing: .onDemand)
        writeOnDemand(tone, to: output)
        output.stop()

        let written = try WAVAudio(contentsOfFile: path)
        #expect(written.format == AudioFormat(sampleRate: 16_000, channels: 1))
        #expect(abs(written.frameCount - 16_000) <= 2)
        #expect(abs(WAVFileFixtures.estimatedFrequency(written.samples, sampleRate: 16_000) - 440) < 3)
        let deviation = WAVFileFixtures.deviationFromSine(
            written.samples, frequency: 440, amplitude: 0.5, sampleRate: 16_000, range: 100..<(written.frameCount - 100)
        )
        #expect(deviation < 0.005)
    }

    @Test("an output in a missing directory is refused with its path")
    func missingDirectoryIsRefused() {
        let path = "/nonexistent-directory/out.wav"
        let error = #expect(throws: AudioDeviceError.self) { try WAVFileOutput(path: path, pacing: .onDemand) }
        #expect(error?.code == .notFound)
        #expect(error?.description.contains(path) == true)
    }

    @Test("an output path that is a directory is refused with its path")
    func directoryPathIsRefused() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let error = #expect(throws: AudioDeviceError.self) {
            try WAVFileOutput(path: directory.path, pacing: .realTime)
        }
        #expect(error?.code == .ioFailure)
        #expect(error?.description.contains(directory.path) == true)
    }

    @Test("nonsensical arguments are refused")
    func invalidArgumentsAreRefused() throws {
        let directory = try WAVFileTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out.wav")
        for make in [
            { try WAVFileOutput(path: path, channels: 3, pacing: .onDemand) },
            { try WAVFileOutput(path: path, sampleRate: 0, pacing: .onDemand) },
            { try WAVFileOutput(path: path, pacing: .realTime, periodFrames: -1) },
        ] as [() throws -> WAVFileOutput] {
            let error = #expect(throws: AudioDeviceError.self) { try make() }
            #expect(error?.code == .invalidArgument)
        }
    }
}
