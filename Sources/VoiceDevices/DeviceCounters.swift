import Synchronization
import VoiceCore

/// The statistics a device thread updates while any other thread may read them: one relaxed
/// atomic per counter, because each is an independent tally and readers want only a recent
/// value, so neither side locks or allocates.
final class DeviceCounters: Sendable {
    let deviceFrames = Atomic<Int>(0)
    let xruns = Atomic<Int>(0)
    let suspends = Atomic<Int>(0)
    let ringStarvedFrames = Atomic<Int>(0)
    let pacedPeriods = Atomic<Int>(0)
    /// The negative library status that ended the device loop, or 0 while it has not failed.
    /// Stored with release ordering so that a reader that sees it also sees the loop's last counts.
    let failureStatus = Atomic<Int32>(0)

    var snapshot: AudioDeviceStatistics {
        AudioDeviceStatistics(
            deviceFrames: deviceFrames.load(ordering: .relaxed),
            xruns: xruns.load(ordering: .relaxed),
            suspends: suspends.load(ordering: .relaxed),
            ringStarvedFrames: ringStarvedFrames.load(ordering: .relaxed),
            pacedPeriods: pacedPeriods.load(ordering: .relaxed))
    }
}
