import VoiceCore

/// Tells time a real-time microphone lost from time it only delivered late.
///
/// A packet's timestamp counts captured frames. A device that missed cycles and then delivered
/// them all at once (late) keeps that count in step with the clock, but one that never delivers
/// the missed cycles (a sound server that skipped them, an overrun) leaves the count behind the
/// clock for good: every later packet would go out that much after its timestamp, and the
/// listener could only take it as the network slowing down, its jitter-buffer target stepping up
/// with each stall until its reference forgot the faster past.
///
/// The *slip* of a delivery is the clock's time minus the time the samples accounted for so far
/// cover. It is judged only when the device has just delivered, where it is smallest: a device
/// that caught up is back at its usual slip, a device that lost time is above it by what it lost.
/// The usual slip is the smallest of the last two windows, so that it follows a device clock
/// that drifts against the system's. Lost time of at least `thresholdFrames` is skipped in whole
/// frames; less is left alone, since a delivery's phase against the engine's tick varies by up
/// to a frame.
struct CaptureTimeline {
    let frameSamples: Int
    let framePeriod: MediaTime
    /// Lost time shorter than this many frames is not skipped.
    static let thresholdFrames = 2

    /// Samples delivered plus samples skipped.
    private var accountedSamples: Int64 = 0
    private var usualSlip = WindowedMinimum(window: 2 * MediaTime.nanosecondsPerSecond)

    init(frameSamples: Int, framePeriod: MediaTime) {
        self.frameSamples = frameSamples
        self.framePeriod = max(framePeriod, 1)
    }

    /// Accounts for `samples` just delivered at `now` and returns the whole frames of time lost
    /// before them (0 when none were delivered, or the device was only late).
    mutating func lostFrames(afterDelivering samples: Int, at now: MediaTime) -> Int {
        accountedSamples += Int64(samples)
        guard samples > 0 else { return 0 }
        var slip = now - MediaTime.duration(ofSamples: accountedSamples)
        var lost = 0
        if let usual = usualSlip.value, slip - usual >= MediaTime(Self.thresholdFrames) * framePeriod {
            lost = Int((slip - usual) / framePeriod)
            accountedSamples += Int64(lost * frameSamples)
            slip -= MediaTime(lost) * framePeriod
        }
        usualSlip.record(slip, at: now)
        return lost
    }
}
