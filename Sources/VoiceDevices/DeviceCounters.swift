import Synchronization
import VoiceCore

/// The statistics a device thread updates while the engine may read them: one atomic per
/// counter, so neither side locks or allocates.
final class DeviceCounters: Sendable {
    let deviceFrames = Atomic<Int>(0)
    let xruns = Atomic<Int>(0)
    let ringStarvedFrames = Atomic<Int>(0)

    var snapshot: AudioDeviceStatistics {
        AudioDeviceStatistics(
            deviceFrames: deviceFrames.load(ordering: .relaxed),
            xruns: xruns.load(ordering: .relaxed),
            ringStarvedFrames: ringStarvedFrames.load(ordering: .relaxed)
        )
    }
}
