#if canImport(Glibc)
    import Glibc
#endif

/// A point in time on the media path, in nanoseconds since an arbitrary epoch.
///
/// No component of the media path reads a clock itself: the caller passes the time in, from a
/// monotonic clock in a real call and from a virtual clock in simulations and tests, so the same
/// code runs minutes of call in milliseconds and gives the same result for the same input.
public typealias MediaTime = Int64

extension MediaTime {
    public static let nanosecondsPerMillisecond: Int64 = 1_000_000
    public static let nanosecondsPerSecond: Int64 = 1_000_000_000

    /// This time in milliseconds, as a Double, for statistics and messages.
    public var milliseconds: Double { Double(self) / 1e6 }

    /// `milliseconds` as a duration in nanoseconds.
    public static func milliseconds(_ milliseconds: Double) -> MediaTime {
        MediaTime((milliseconds * 1e6).rounded())
    }
}

extension MediaTime {
    /// How long `samples` at the engine's rate (48 kHz) last, rounded down to the nanosecond.
    /// Whole seconds are converted apart from the rest, so a count of any size converts; scaling
    /// the count by 10⁹ first would overflow after 53 hours' worth.
    public static func duration(ofSamples samples: Int64) -> MediaTime {
        duration(ofFrames: samples, rate: engineSampleRate)
    }

    /// How long `frames` at `rate` frames per second last, rounded down to the nanosecond, for a
    /// device at its own rate; converted like `duration(ofSamples:)`, so any count converts.
    public static func duration(ofFrames frames: Int64, rate: Int) -> MediaTime {
        let rate = Int64(Swift.max(rate, 1))
        return frames / rate * nanosecondsPerSecond + frames % rate * nanosecondsPerSecond / rate
    }
}

extension FrameDuration {
    /// The frame length in nanoseconds.
    public var nanoseconds: MediaTime { MediaTime(rawValue) * 100_000 }
}

extension MediaTime {
    /// Now on CLOCK_MONOTONIC: what a real-time caller passes in as the time, and what time-outs
    /// and cost measurements read. `clock_gettime` neither allocates nor locks, so device threads
    /// may call it.
    public static func monotonicNow() -> MediaTime {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return MediaTime(now.tv_sec) * nanosecondsPerSecond + MediaTime(now.tv_nsec)
    }

    /// Sleeps until `deadline` on CLOCK_MONOTONIC. The deadline is absolute, so a loop that adds
    /// its period to the last deadline keeps its rate however late each wake-up is. Neither
    /// allocates nor locks, so device threads may call it.
    public static func sleep(until deadline: MediaTime) {
        var target = timespec(
            tv_sec: Int(deadline / nanosecondsPerSecond), tv_nsec: Int(deadline % nanosecondsPerSecond))
        // clock_nanosleep returns the error number (EINTR after a signal) instead of setting errno;
        // with an absolute deadline, sleeping again is always correct.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}
