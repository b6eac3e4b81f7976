import Foundation
import Testing
import VoiceCore
import VoiceDevices

extension ALSADeviceTests {
    /// ALSA's `null` takes and gives periods the moment it is asked. Its device threads are held to
    /// the nominal rate instead of spinning on a real-time thread: in any stretch of time they move
    /// no more than that time's frames and the buffer a clocked device may hold ahead.
    @Suite struct UnclockedDevices {
        init() { ALSATestEnvironment.configured }

        static let configuration = ALSADeviceConfiguration(
            name: "null", periodFrames: 480, bufferFrames: 4 * 480, ringFrames: 9_600)

        /// Expects a device that ran for `seconds` to have moved no more than its rate allows plus its
        /// allowance, to have been held back, and not to have failed.
        static func expectHeldToRate(
            _ statistics: AudioDeviceStatistics, _ granted: ALSAGrantedParameters, seconds: Double,
            failure: AudioDeviceError?
        ) {
            let limit = Int(seconds * Double(granted.sampleRate)) + granted.bufferFrames + 2 * granted.periodFrames
            #expect(statistics.deviceFrames <= limit, "\(statistics.deviceFrames) frames in \(seconds) s")
            #expect(statistics.pacedPeriods > 0)
            #expect(failure == nil)
        }

        @Test func captureFromNullIsHeldToItsRate() throws {
            let device = try ALSACaptureDevice(Self.configuration)
            var buffer = [Float](repeating: 0, count: 9_600)
            let started = Date()
            try device.start()
            // Drain as the engine would, for 0.3 s.
            while Date().timeIntervalSince(started) < 0.3 {
                _ = buffer.withUnsafeMutableBufferPointer { device.read(into: $0) }
                usleep(2_000)
            }
            let statistics = device.statistics
            let elapsed = Date().timeIntervalSince(started)
            device.stop()
            Self.expectHeldToRate(statistics, device.granted, seconds: elapsed, failure: device.failure)
        }

        @Test func playbackToNullIsHeldToItsRate() throws {
            let device = try ALSAPlaybackDevice(Self.configuration)
            let started = Date()
            try device.start()
            _ = ALSADeviceTests.wait(seconds: 0.3) { false }
            let statistics = device.statistics
            let elapsed = Date().timeIntervalSince(started)
            device.stop()
            Self.expectHeldToRate(statistics, device.granted, seconds: elapsed, failure: device.failure)
        }
    }
}
