import Foundation
import VoiceDevices
import VoiceSimulation
import VoiceTestHarness

/// Plays a signal into the near end's microphone port of a chain on one JACK server and records,
/// through the benchmark's own 2-channel capture PCM, what it played (channel 0) and what the far
/// end's speaker port put out (channel 1). Both channels pass through the same capture in the
/// same JACK cycle, so their offset is the chain's delay and nothing of the recording's own.
///
/// The ALSA configuration must define `PREFIX_inj` (a jack playback PCM whose client is
/// `inj<tag>`) and `PREFIX_det` (2-channel capture, client `det<tag>`); the chain's PCMs are the
/// clients `amic<tag>` (near microphone) and `bspk<tag>` (far speaker).
struct JACKChainRecorder {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let server: JACKServer
    let prefix: String
    let tag: String
    let periodFrames: Int

    /// Plays `signal` and returns the interleaved recording, with a second of room after it.
    func playAndRecord(_ signal: [Float]) throws -> [Float] {
        let frames = signal.count + 48_000
        let injector = try ALSAPlaybackDevice(
            ALSADeviceConfiguration(
                name: "\(prefix)_inj", sampleFormat: .float32, periodFrames: periodFrames,
                bufferFrames: 4 * periodFrames, ringFrames: frames))
        let detector = try ALSACaptureDevice(
            ALSADeviceConfiguration(
                name: "\(prefix)_det", channels: 2, sampleFormat: .float32, periodFrames: periodFrames,
                bufferFrames: 4 * periodFrames, ringFrames: frames))
        try server.connect("inj\(tag):out_000", to: "amic\(tag):in_000")
        try server.connect("inj\(tag):out_000", to: "det\(tag):in_000")
        try server.connect("bspk\(tag):out_000", to: "det\(tag):in_001")
        guard signal.withUnsafeBufferPointer({ injector.write($0) }) == signal.count else {
            throw Failure(description: "the injector's ring took only part of the signal")
        }
        try detector.start()
        try injector.start()
        injector.stop()  // returns once the whole signal has played
        usleep(500_000)
        detector.stop()
        var recording = [Float](repeating: 0, count: detector.availableToRead * 2)
        let read = recording.withUnsafeMutableBufferPointer { detector.read(into: $0) }
        recording.removeLast(recording.count - read * 2)
        return recording
    }
}
