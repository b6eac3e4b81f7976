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

        /// The most a device may have moved after `seconds`, at its rate plus its allowance.
        static func limit(_ device: ALSAGrantedParameters, seconds: Double) -> Int {
            Int(seconds * Double(device.sampleRate)) + device.bufferFrames + 2 * device.periodFrames
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
            let moved = device.statistics.deviceFrames
            let elapsed = Date().timeIntervalSince(started)
            device.stop()
            #expect(moved <= Self.limit(device.granted, seconds: elapsed), "\(moved) frames in \(elapsed) s")
            #expect(device.statistics.pacedPeriods > 0)
            #expect(device.failure == nil)
        }

        @Test func playbackToNullIsHeldToItsRate() throws {
            let device = try ALSAPlaybackDevice(Self.configuration)
            let started = Date()
            try device.start()
            _ = ALSADeviceTests.wait(seconds: 0.3) { false }
            let moved = device.statistics.deviceFrames
            let elapsed = Date().timeIntervalSince(started)
            device.stop()
            #expect(moved <= Self.limit(device.granted, seconds: elapsed), "\(moved) frames in \(elapsed) s")
            #expect(device.statistics.pacedPeriods > 0)
            #expect(device.failure == nil)
        }
    }
}
