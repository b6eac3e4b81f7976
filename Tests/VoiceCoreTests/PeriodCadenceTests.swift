import Synchronization
import Testing
import VoiceCore

@Suite struct PeriodCadenceTests {
    static let millisecond = MediaTime.nanosecondsPerMillisecond
    /// 10 ms periods at 48 kHz.
    static func tenMillisecondCadence() -> PeriodCadence { PeriodCadence(periodFrames: 480, sampleRate: 48_000) }

    @Test func aDeviceThatHasNotMovedAPeriodGivesNoRhythm() {
        let cadence = Self.tenMillisecondCadence()
        #expect(cadence.period == 10 * Self.millisecond)
        #expect(cadence.periodEngineFrames == 480)
        #expect(cadence.nextPeriod(at: 1_000 * Self.millisecond) == nil)
    }

    @Test func theNextPeriodFollowsTheRhythmAndLateWakeUpsDoNotMoveIt() {
        let cadence = Self.tenMillisecondCadence()
        let start = 1_000 * Self.millisecond
        for period in 0..<10 { cadence.markPeriod(at: start + MediaTime(period) * 10 * Self.millisecond) }
        #expect(cadence.nextPeriod(at: start + 95 * Self.millisecond) == start + 100 * Self.millisecond)
        // The device thread woke 4 ms late for this one; the rhythm stands.
        cadence.markPeriod(at: start + 104 * Self.millisecond)
        #expect(cadence.nextPeriod(at: start + 105 * Self.millisecond) == start + 110 * Self.millisecond)
        // Two periods taken at once after a late wake-up: still on the rhythm.
        cadence.markPeriod(at: start + 125 * Self.millisecond)
        cadence.markPeriod(at: start + 125 * Self.millisecond + 20_000)
        #expect(cadence.nextPeriod(at: start + 126 * Self.millisecond) == start + 130 * Self.millisecond)
    }

    /// A device whose real period is 0.5 % longer than its nominal one (a JACK dummy server on a
    /// loaded machine) is predicted from its recent periods: never after it moves, and less than a
    /// millisecond before.
    @Test func aDeviceSlowerThanItsNominalRateIsPredictedFromItsRecentPeriods() {
        let cadence = Self.tenMillisecondCadence()
        let realPeriod = 10_050_000 as MediaTime
        var errors: [MediaTime] = []
        for period in 0..<1_000 {
            let now = MediaTime(period) * realPeriod
            if period > 0, let predicted = cadence.nextPeriod(at: now - 1) { errors.append(now - predicted) }
            cadence.markPeriod(at: now)
        }
        #expect(errors.count == 999)
        #expect(errors.allSatisfy { $0 >= 0 && $0 < Self.millisecond }, "\(errors.max() ?? 0) ns early at worst")
    }

    @Test func aStalledOrRestartedDeviceGivesNoRhythm() {
        let cadence = Self.tenMillisecondCadence()
        for period in 0..<5 { cadence.markPeriod(at: MediaTime(period) * 10 * Self.millisecond) }
        #expect(cadence.nextPeriod(at: 60 * Self.millisecond) == 50 * Self.millisecond)
        // Nothing moved for more than two periods: the device stopped or stalled.
        #expect(cadence.nextPeriod(at: 61 * Self.millisecond) == nil)
        cadence.restart()
        #expect(cadence.nextPeriod(at: 41 * Self.millisecond) == nil)
        // A new run keeps its own phase.
        cadence.markPeriod(at: 73 * Self.millisecond)
        #expect(cadence.nextPeriod(at: 74 * Self.millisecond) == 83 * Self.millisecond)
    }

    @Test func aPeriodOfADeviceAtAnotherRateIsCountedInItsFrames() {
        let cadence = PeriodCadence(periodFrames: 256, sampleRate: 44_100)
        #expect(cadence.period == 5_804_988)
        #expect(cadence.periodEngineFrames == 279)
        // 44 100 periods of 256 frames last exactly 256 s: the rounding of one period never adds up.
        let second = MediaTime.nanosecondsPerSecond
        for period in 0..<44_100 { cadence.markPeriod(at: MediaTime(period) * 256 * second / 44_100) }
        #expect(cadence.nextPeriod(at: 256 * second - 1) == 256 * second)
    }

    @Test func aWaitReturnsAtOnceWhenAPeriodCameSinceTheCountWasRead() {
        let cadence = Self.tenMillisecondCadence()
        let seen = cadence.periodCount
        cadence.markPeriod(at: MediaTime.monotonicNow())
        #expect(cadence.periodCount == seen &+ 1)
        let before = MediaTime.monotonicNow()
        // A deadline a minute away: only the period already marked can end this wait.
        cadence.waitForPeriod(after: seen, until: before + 60 * MediaTime.nanosecondsPerSecond)
        #expect(MediaTime.monotonicNow() - before < 30 * MediaTime.nanosecondsPerSecond)
    }

    @Test func aWaitEndsAtItsDeadlineWhenNoPeriodComes() {
        let cadence = Self.tenMillisecondCadence()
        let deadline = MediaTime.monotonicNow() + 20 * Self.millisecond
        cadence.waitForPeriod(after: cadence.periodCount, until: deadline)
        #expect(MediaTime.monotonicNow() >= deadline)
    }

    @Test func aPeriodMarkedOnAnotherThreadWakesTheWaitingOne() throws {
        let cadence = Self.tenMillisecondCadence()
        let seen = cadence.periodCount
        let marked = Atomic<Bool>(false)
        let device = try AudioThread(name: "test device", scheduling: .normal) { _ in
            MediaTime.sleep(until: MediaTime.monotonicNow() + 20 * Self.millisecond)
            marked.store(true, ordering: .releasing)
            cadence.markPeriod(at: MediaTime.monotonicNow())
        }
        defer { device.join() }
        let before = MediaTime.monotonicNow()
        // A deadline a minute away: only the other thread's mark can end this wait in time.
        cadence.waitForPeriod(after: seen, until: before + 60 * MediaTime.nanosecondsPerSecond)
        let wasMarked = marked.load(ordering: .acquiring)
        #expect(wasMarked)
        #expect(MediaTime.monotonicNow() - before < 30 * MediaTime.nanosecondsPerSecond)
    }
}
