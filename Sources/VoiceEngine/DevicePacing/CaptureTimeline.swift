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
/// that drifts against the system's. Lost time is skipped in whole frames; less than a frame is
/// left alone, since a delivery's phase against the engine's tick varies by up to a frame.
///
/// A slip of two frames or more over the usual is skipped at once. One of a frame or more but
/// under two is skipped only once it has stood for `confirmation`: a device still catching up
/// (or an engine thread that woke late) shows such a slip for one delivery and is back at its
/// usual slip by the next, while lost time stays. Leaving it standing until it reached two
/// frames, as the immediate rule alone did, put a sawtooth of up to two frames between a
/// sender's packets and their timestamps whenever its sound server lost time in small pieces (a
/// JACK server on a busy machine), which the listener measured as jitter: its target doubled.
struct CaptureTimeline {
    let frameSamples: Int
    let framePeriod: MediaTime
    /// How long a slip of one frame (but under two) must stand before it is taken for lost time:
    /// two frames, and never under 20 ms, longer than a sound server's catch-up after a stall.
    let confirmation: MediaTime

    /// Samples delivered plus samples skipped.
    private var accountedSamples: Int64 = 0
    private var usualSlip = WindowedMinimum(window: 2 * MediaTime.nanosecondsPerSecond)
    /// Since when every delivery has been a frame or more over the usual slip, and the least it
    /// was over in that time; nil while the last delivery was within a frame of it.
    private var suspectedLoss: (since: MediaTime, smallestExcess: MediaTime)?

    init(frameSamples: Int, framePeriod: MediaTime) {
        self.frameSamples = frameSamples
        self.framePeriod = max(framePeriod, 1)
        confirmation = max(2 * self.framePeriod, MediaTime.milliseconds(20))
    }

    /// Accounts for `samples` just delivered at `now` and returns the whole frames of time lost
    /// before them (0 when none were delivered, or the device was only late).
    mutating func lostFrames(afterDelivering samples: Int, at now: MediaTime) -> Int {
        accountedSamples += Int64(samples)
        guard samples > 0 else { return 0 }
        var slip = now - MediaTime.duration(ofSamples: accountedSamples)
        let lost = usualSlip.value.map { framesLost(excess: slip - $0, at: now) } ?? 0
        if lost > 0 {
            accountedSamples += Int64(lost * frameSamples)
            slip -= MediaTime(lost) * framePeriod
        }
        usualSlip.record(slip, at: now)
        return lost
    }

    /// The whole frames to skip for a delivery `excess` over the usual slip.
    private mutating func framesLost(excess: MediaTime, at now: MediaTime) -> Int {
        guard excess >= framePeriod else {
            suspectedLoss = nil
            return 0
        }
        if excess >= 2 * framePeriod {
            suspectedLoss = nil
            return Int(excess / framePeriod)
        }
        guard let suspected = suspectedLoss else {
            suspectedLoss = (now, excess)
            return 0
        }
        let smallestExcess = min(suspected.smallestExcess, excess)
        guard now - suspected.since >= confirmation else {
            suspectedLoss = (suspected.since, smallestExcess)
            return 0
        }
        suspectedLoss = nil
        return Int(smallestExcess / framePeriod)
    }
}
