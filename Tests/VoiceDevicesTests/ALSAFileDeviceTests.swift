import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceSimulation

/// Capture and playback through ALSA's `file` plugin: real alsa-lib, real device threads,
/// raw files instead of a sound card. The plugin is not paced, so these check the data
/// path exactly, not timing.
extension ALSADeviceTests {
    @Suite struct FileDevices {
        init() { ALSATestEnvironment.configured }

        /// Every int16 value class: both extremes, zero, and a spread in between.
        static func int16Pattern(frames: Int) -> [Int16] {
            (0..<frames).map { index in
                switch index % 1000 {
                case 0: .min
                case 1: .max
                case 2: 0
                default: Int16(truncatingIfNeeded: index &* 131 &- 20_000)
                }
            }
        }

        /// Reads exactly `frames` frames from a running capture device.
        static func capture(_ frames: Int, from device: ALSACaptureDevice) throws -> [Float] {
            let arrived = ALSADeviceTests.wait(seconds: 10) { device.availableToRead >= frames }
            try #require(arrived, "capture delivered \(device.availableToRead) of \(frames) frames")
            var samples = [Float](repeating: .nan, count: frames * device.format.channels)
            let read = samples.withUnsafeMutableBufferPointer { device.read(into: $0) }
            #expect(read == frames)
            return samples
        }

        @Test func captureDeliversTheInfileExactly() throws {
            // The plugin returns stale data after the infile's end, so exactly the file's
            // length is read. The plugin has no clock: the device thread keeps its rate.
            let frames = 4_096
            let pattern = Self.int16Pattern(frames: frames)
            try ALSATestEnvironment.writeRaw(pattern, to: "mic-s16.raw")
            defer { ALSATestEnvironment.remove("mic-s16.raw") }

            let device = try ALSACaptureDevice(
                ALSADeviceConfiguration(name: "vc_mic_s16", sampleFormat: .int16, ringFrames: frames))
            try device.start()
            let captured = try Self.capture(frames, from: device)
            device.stop()

            #expect(device.granted.sampleRate == 48_000)
            #expect(captured == pattern.map { Float($0) / 32_768 })
            #expect(device.statistics.deviceFrames >= frames)
            #expect(device.statistics.pacedPeriods > 0, "the device without a clock should be held to its rate")
            #expect(device.failure == nil)
        }

        @Test(arguments: [(SampleFormat.int16, 1), (.float32, 1), (.int16, 2)])
        func playbackWritesTheSignalExactly(format: SampleFormat, channels: Int) throws {
            let pcm = "vc_spk_\(format)_\(channels)"
            let file = "\(pcm).raw"
            defer { ALSATestEnvironment.remove(file) }
            let frames = 12_000
            // int16-exact values, so that both formats must reproduce them bit for bit.
            let signal = Self.int16Pattern(frames: frames * channels).map { Float($0) / 32_768 }

            let device = try ALSAPlaybackDevice(
                ALSADeviceConfiguration(name: pcm, channels: channels, sampleFormat: format, ringFrames: 16_384))
            // Queued before start, so the first period the device plays is the signal's.
            let queued = signal.withUnsafeBufferPointer { device.write($0) }
            #expect(queued == frames)
            try device.start()
            device.stop()
            #expect(device.queuedFrames == 0)
            #expect(device.failure == nil)

            let played: [Float] =
                switch format {
                case .int16: try ALSATestEnvironment.readRaw(file, as: Int16.self).map { Float($0) / 32_768 }
                case .float32: try ALSATestEnvironment.readRaw(file, as: Float.self)
                }
            try #require(played.count >= signal.count)
            #expect(Array(played[..<signal.count]) == signal)
            // Whatever follows is the silence the device plays while the ring is empty until
            // it sees the stop; unpaced, that can be megabytes when this thread is descheduled.
            let tail = played[signal.count...]
            #expect(tail.allSatisfy { $0 == 0 })
            #expect(device.statistics.ringStarvedFrames * channels == tail.count)
            #expect(device.statistics.deviceFrames * channels == played.count)
        }

        /// The silence that fills the device's buffer before the stream starts is its start-up,
        /// not frames the engine failed to supply: only what is padded once the stream runs counts
        /// as starved. (Every run reported a buffer's worth, "silence inserted 2880 frames".)
        @Test func silenceBeforeTheStreamStartsIsNotCountedAsStarved() throws {
            defer { ALSATestEnvironment.remove("vc_spk_int16_1.raw") }
            let device = try ALSAPlaybackDevice(
                ALSADeviceConfiguration(
                    name: "vc_spk_int16_1", sampleFormat: .int16, periodFrames: 480, bufferFrames: 4 * 480,
                    ringFrames: 16_384))
            let queuedFrames = device.granted.periodFrames
            try #require(device.granted.bufferFrames > queuedFrames)
            let signal = Self.int16Pattern(frames: queuedFrames).map { Float($0) / 32_768 }
            #expect(signal.withUnsafeBufferPointer { device.write($0) } == queuedFrames)
            try device.start()
            // Past its start-up: the unpaced device runs on the ring's silence at once.
            let ran = ALSADeviceTests.wait(seconds: 10) {
                device.statistics.deviceFrames >= 2 * device.granted.bufferFrames
            }
            device.stop()
            try #require(ran, "the device played \(device.statistics.deviceFrames) frames")

            let played = try ALSATestEnvironment.readRaw("vc_spk_int16_1.raw", as: Int16.self)
            try #require(played.count >= device.granted.bufferFrames)
            #expect(played[..<queuedFrames].map { Float($0) / 32_768 } == signal)
            #expect(played[queuedFrames...].allSatisfy { $0 == 0 })
            // Everything after the signal is silence; the first buffer's worth of it was played
            // before the stream ran.
            let startUp = device.granted.bufferFrames - queuedFrames
            #expect(device.statistics.ringStarvedFrames == played.count - queuedFrames - startUp)
        }

        @Test func playbackAt16kHzKeepsLengthAndPitch() throws {
            defer { ALSATestEnvironment.remove("spk-16k.raw") }
            let frames = 24_000
            let tone = TestSignal.sine(frequency: 1_000, amplitude: 0.5, frames: frames)

            let device = try ALSAPlaybackDevice(
                ALSADeviceConfiguration(
                    name: "vc_spk_16k", sampleRate: 16_000, periodFrames: 160, bufferFrames: 640, ringFrames: 32_768))
            #expect(device.granted.sampleRate == 16_000)
            _ = tone.withUnsafeBufferPointer { device.write($0) }
            try device.start()
            device.stop()

            let played = try ALSATestEnvironment.readRaw("spk-16k.raw", as: Int16.self).map { Float($0) / 32_768 }
            let loud = played.indices.filter { abs(played[$0]) > 0.1 }
            let first = try #require(loud.first)
            let last = try #require(loud.last)
            // 0.5 s at 16 kHz, give or take the filter's ramp at either end and half a cycle
            // (8 frames) of the loudness threshold.
            #expect(first < 100)
            #expect(abs((last - first + 1) - 8_000) <= 64)
            let frequency = SignalAnalysis.toneFrequency(played[(first + 200)..<(last - 200)], sampleRate: 16_000)
            #expect(abs(frequency - 1_000) < 5)
            #expect(abs(SignalAnalysis.rms(played[(first + 200)..<(last - 200)]) - 0.5 / Float(2).squareRoot()) < 0.02)
        }

        @Test func captureAt16kHzKeepsLengthAndPitch() throws {
            let deviceFrames = 16_000
            let tone = TestSignal.sine(frequency: 1_000, amplitude: 0.5, frames: deviceFrames, sampleRate: 16_000)
            try ALSATestEnvironment.writeRaw(tone.map { SampleConversion.int16(fromFloat: $0) }, to: "mic-16k.raw")
            defer { ALSATestEnvironment.remove("mic-16k.raw") }

            let device = try ALSACaptureDevice(
                ALSADeviceConfiguration(
                    name: "vc_mic_16k", sampleRate: 16_000, periodFrames: 160, bufferFrames: 640, ringFrames: 65_536))
            #expect(device.granted.sampleRate == 16_000)
            try device.start()
            // 1 s at 16 kHz is 48 000 frames at 48 kHz; the filter delays the start a little.
            let captured = try Self.capture(47_000, from: device)
            device.stop()

            let frequency = SignalAnalysis.toneFrequency(captured[1_000...], sampleRate: 48_000)
            #expect(abs(frequency - 1_000) < 5)
            #expect(abs(SignalAnalysis.rms(captured[1_000...]) - 0.5 / Float(2).squareRoot()) < 0.02)
            // Every device frame became three engine frames (delivered, still queued or
            // dropped by the full ring), up to the filter's delay.
            let statistics = device.statistics
            let engineFrames = 47_000 + device.availableToRead + statistics.ringStarvedFrames
            #expect(abs(engineFrames - 3 * statistics.deviceFrames) < 200)
        }
    }
}
