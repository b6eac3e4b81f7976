import Foundation
import VoiceDevices
import VoiceSimulation
import VoiceTestHarness

/// Plays a signal into the near end's microphone of a chain on one sound server and records,
/// through the benchmark's own 2-channel capture PCM, what it played (channel 0) and what the far
/// end's speaker put out (channel 1). Both channels pass through the same capture in the same
/// server cycle, so their offset is the chain's delay and nothing of the recording's own.
///
/// The ALSA configuration must define `PREFIX_inj` (playback into the near microphone and the
/// detector's channel 0) and `PREFIX_det` (2-channel capture, channel 1 the far speaker).
struct ChainRecorder {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let prefix: String
    let periodFrames: Int
    /// Joins the injector and the detector to the chain once both are open.
    let connect: () throws -> Void

    /// On a JACK server, whose clients' ports exist only once open: the injector (client
    /// `inj<tag>`) into the near microphone (`amic<tag>`) and the detector's channel 0 (`det<tag>`),
    /// the far speaker (`bspk<tag>`) into its channel 1.
    init(jack server: JACKServer, prefix: String, tag: String, periodFrames: Int) {
        self.prefix = prefix
        self.periodFrames = periodFrames
        connect = {
            try server.connect("inj\(tag):out_000", to: "amic\(tag):in_000")
            try server.connect("inj\(tag):out_000", to: "det\(tag):in_000")
            try server.connect("bspk\(tag):out_000", to: "det\(tag):in_001")
        }
    }

    /// On a server whose graph already joins the PCMs' nodes (see `PipeWireServer`).
    init(prefix: String, periodFrames: Int) {
        self.prefix = prefix
        self.periodFrames = periodFrames
        connect = {}
    }

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
        try connect()
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
