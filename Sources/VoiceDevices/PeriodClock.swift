import VoiceCore

/// Wakes a device loop once per period on absolute CLOCK_MONOTONIC deadlines.
///
/// Each deadline is computed from the start time and the number of frames elapsed, never by
/// adding a rounded period to the previous wake-up, so a period that is not a whole number
/// of nanoseconds and a thread that wakes up late both leave the long-run rate exact: a late
/// wake-up is followed by back-to-back periods until the loop has caught up, as a sound card
/// would have consumed them. Neither waiting nor computing a deadline allocates.
struct PeriodClock {
    let periodFrames: Int
    let sampleRate: Int
    private var startNanoseconds: Int = 0
    private var elapsedFrames: Int = 0

    init(periodFrames: Int, sampleRate: Int) {
        self.periodFrames = periodFrames
        self.sampleRate = sampleRate
    }

    /// Starts counting periods from now.
    mutating func start() {
        startNanoseconds = Int(MediaTime.monotonicNow())
        elapsedFrames = 0
    }

    /// Sleeps until the end of the next period.
    mutating func waitForNextPeriod() {
        elapsedFrames += periodFrames
        MediaTime.sleep(until: MediaTime(startNanoseconds + elapsedFrames * 1_000_000_000 / sampleRate))
    }
}
