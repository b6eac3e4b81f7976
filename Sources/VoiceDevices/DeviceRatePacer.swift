import VoiceCore

/// Holds a device loop to its nominal rate when the device itself does not: a PCM with no clock
/// behind it (ALSA's `null`, the `file` plugin on `null`) takes and gives periods the moment it
/// is asked, and a loop that only waits on the device would spin on a real-time thread.
///
/// A real device cannot move more than its rate allows since its stream started, plus the
/// buffer it was filled with (playback) or had collected (capture); so a loop that is further
/// ahead than that is running on a device without a clock, and sleeps until its frames are due,
/// on absolute CLOCK_MONOTONIC deadlines. A real device is never held back.
///
/// Device thread only; neither the check nor the sleep allocates.
public struct DeviceRatePacer: Sendable {
    public let sampleRate: Int
    /// How far ahead of its rate a device with a clock can be: its buffer and one more period.
    public let allowanceFrames: Int
    private var startNanoseconds = 0
    private var movedFrames = 0
    private var started = false

    public init(sampleRate: Int, bufferFrames: Int, periodFrames: Int) {
        self.sampleRate = max(sampleRate, 1)
        allowanceFrames = bufferFrames + periodFrames
    }

    /// Forgets the run: the stream was prepared or recovered and starts over.
    public mutating func restart() {
        started = false
        movedFrames = 0
    }

    /// Records that the device moved `frames` at `now`; returns when the loop may go on if that
    /// puts it further ahead of its rate than a device with a clock could be, else nil.
    public mutating func moved(_ frames: Int, now: MediaTime) -> MediaTime? {
        if !started {
            started = true
            startNanoseconds = Int(now)
        }
        movedFrames += frames
        let aheadFrames = movedFrames - allowanceFrames
        guard aheadFrames > 0 else { return nil }
        let due = startNanoseconds + Int(MediaTime.duration(ofFrames: Int64(aheadFrames), rate: sampleRate))
        return due > Int(now) ? MediaTime(due) : nil
    }

    /// `moved(_:now:)` on the monotonic clock, sleeping until the frames are due. Returns whether
    /// it slept.
    mutating func pace(afterMoving frames: Int) -> Bool {
        guard let due = moved(frames, now: MediaTime.monotonicNow()) else { return false }
        MediaTime.sleep(until: due)
        return true
    }
}
