import Synchronization
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The counters a device loop updates and any thread reads: relaxed atomics, because each
/// is an independent tally and readers only want a recent value.
final class ALSADeviceCounters: Sendable {
    let deviceFrames = Atomic<Int>(0)
    let xruns = Atomic<Int>(0)
    let suspends = Atomic<Int>(0)
    let ringStarvedFrames = Atomic<Int>(0)
    /// The negative ALSA status that ended the loop, or 0 while it has not failed.
    let failureStatus = Atomic<Int32>(0)

    var snapshot: AudioDeviceStatistics {
        AudioDeviceStatistics(
            deviceFrames: deviceFrames.load(ordering: .relaxed),
            xruns: xruns.load(ordering: .relaxed),
            suspends: suspends.load(ordering: .relaxed),
            ringStarvedFrames: ringStarvedFrames.load(ordering: .relaxed))
    }

    /// The failure that stopped the device loop, if one did.
    func failure(device: String, stream: ALSAStream) -> AudioDeviceError? {
        let status = failureStatus.load(ordering: .acquiring)
        guard status != 0 else { return nil }
        return AudioDeviceError(
            .ioFailure, device: device,
            reason: "\(stream) stopped: \(AudioDeviceError.alsaReason(status))",
            suggestion: "the device may have been unplugged or its server stopped; open it again")
    }
}
