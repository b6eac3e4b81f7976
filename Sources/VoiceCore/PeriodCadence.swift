import Synchronization

/// The rhythm in which a real-time device moves its periods, for the engine to keep time by.
///
/// A sound card delivers captured audio, and takes audio to play, one period at a time on its
/// own clock. An engine ticking on a timer of its own meets those periods at an arbitrary phase:
/// a captured frame waits up to a frame for the tick that sends it, and a mixed frame waits up
/// to a frame in the speaker's queue before the device takes it. With the cadence, the engine
/// sends each captured frame the moment the microphone delivers it (`waitForPeriod`) and mixes
/// each frame just before the speaker takes it (`nextPeriod`).
///
/// The device thread calls `markPeriod` after every period it moved, and `restart` when its
/// stream starts over (after an xrun); neither allocates, locks or blocks. The prediction is the
/// earliest the device has moved against its nominal rhythm over its last 8 to 16 periods (a
/// `WindowedMinimum` of `phaseWindowPeriods`): a wake-up that came late only makes a mark later,
/// never the prediction. The history is short because a device's real period is not its nominal
/// one: a JACK dummy server on a loaded machine ran 0.5 % slow, and against an earliest phase kept
/// over seconds its periods came 12–20 ms "late", so the engine mixed one or two periods too early
/// and they waited in the queue.
///
/// Thread contract (the reason for `@unchecked Sendable`): `markPeriod` and `restart` are called
/// by one device thread at a time (the owner resets through `restart` only while no device
/// thread runs); every other member may be called from any thread. What readers see is
/// published through atomics.
public final class PeriodCadence: @unchecked Sendable {
    /// Frames the device moves per period, at its own rate.
    public let periodFrames: Int
    /// The device's frame rate.
    public let sampleRate: Int
    /// One period, rounded down to the nanosecond (predictions count frames, so the rounding
    /// never accumulates).
    public let period: MediaTime
    /// One period in engine (48 kHz) frames, rounded up.
    public let periodEngineFrames: Int

    /// The periods of one window of the earliest phase (taken over this window and the one before):
    /// long enough to see past a few late wake-ups, short enough that a period 0.5 % off its
    /// nominal length shifts the prediction by under a millisecond.
    static let phaseWindowPeriods: Int64 = 8

    /// Bumped at every mark; the engine sleeps on it.
    private let marks = WakeCounter()
    /// The predicted time of the next period; `none` before the first mark of a run.
    private let predictedNext = Atomic<Int64>(PeriodCadence.none)
    /// When the last period was marked; `none` before the first mark of a run.
    private let lastMark = Atomic<Int64>(PeriodCadence.none)
    private static let none = MediaTime.min

    // Device thread only.
    private var runStart: MediaTime = 0
    private var periodsInRun: Int64 = 0
    private var earliestPhase: WindowedMinimum

    public init(periodFrames: Int, sampleRate: Int) {
        self.periodFrames = max(periodFrames, 1)
        self.sampleRate = max(sampleRate, 1)
        period = MediaTime.duration(ofFrames: Int64(self.periodFrames), rate: self.sampleRate)
        periodEngineFrames = engineFrames(ofDeviceFrames: self.periodFrames, sampleRate: self.sampleRate)
        earliestPhase = WindowedMinimum(window: Self.phaseWindowPeriods * period)
    }

    // MARK: Device thread

    /// Records that the device moved one period at `now` and wakes a waiting engine.
    public func markPeriod(at now: MediaTime) {
        if periodsInRun == 0 { runStart = now }
        // How much later than its nominal rhythm since the run started the device moved this one.
        let phase = now - runStart - elapsed(periods: periodsInRun)
        earliestPhase.record(phase, at: now)
        periodsInRun += 1
        let earliest = earliestPhase.value ?? phase
        predictedNext.store(runStart + earliest + elapsed(periods: periodsInRun), ordering: .relaxed)
        lastMark.store(now, ordering: .releasing)
        marks.bump()
    }

    /// Forgets the rhythm: the device's stream starts over (it was started, or recovered from an
    /// xrun) and its periods fall on a new phase.
    public func restart() {
        periodsInRun = 0
        earliestPhase.reset()
        predictedNext.store(Self.none, ordering: .relaxed)
        lastMark.store(Self.none, ordering: .releasing)
    }

    private func elapsed(periods: Int64) -> MediaTime {
        MediaTime.duration(ofFrames: periods * Int64(periodFrames), rate: sampleRate)
    }

    // MARK: Any thread

    /// When the device is expected to move its next period, seen at `now`; nil when there is no
    /// rhythm to go by: no period moved yet in this run, or none for two periods' time (the
    /// device stopped or stalled). The time may lie in the past when the device is late.
    public func nextPeriod(at now: MediaTime) -> MediaTime? {
        let last = lastMark.load(ordering: .acquiring)
        guard last != Self.none, now - last <= 2 * period else { return nil }
        let next = predictedNext.load(ordering: .relaxed)
        return next == Self.none ? nil : next
    }

    /// A count that moves on at every period marked (and at every `wakeWaiter`): read it, look at
    /// what the device delivered, then `waitForPeriod(after:until:)` with it, and no period can
    /// slip by unnoticed.
    public var periodCount: UInt32 { marks.value }

    /// Wakes a thread in `waitForPeriod` without marking a period, for work of its own (a control
    /// call for the engine thread): it finds no new period and waits again. Never blocks.
    public func wakeWaiter() {
        marks.bump()
    }

    /// Sleeps until a period after `seen` (a `periodCount`) is marked, or until `deadline` on the
    /// monotonic clock; returns at once if one already was.
    public func waitForPeriod(after seen: UInt32, until deadline: MediaTime) {
        marks.wait(after: seen, until: deadline)
    }
}
