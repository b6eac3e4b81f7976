import Testing
import VoiceCore

@testable import VoiceEngine

@Suite struct PlayoutScheduleTests {
    static let millisecond = MediaTime.nanosecondsPerMillisecond

    /// A 10 ms speaker period of 480 frames.
    static func schedule() -> PlayoutSchedule {
        PlayoutSchedule(period: 10 * millisecond, periodEngineFrames: 480)
    }

    @Test func aFrameIsMixedJustBeforeTheFirstPeriodTheQueueDoesNotCover() {
        let schedule = Self.schedule()
        let next = 100 * Self.millisecond
        #expect(schedule.lead == 2 * Self.millisecond)
        #expect(schedule.due(nextPeriod: next, queuedFrames: 0) == 98 * Self.millisecond)
        // A period already waits: the next frame is for the period after.
        #expect(schedule.due(nextPeriod: next, queuedFrames: 480) == 108 * Self.millisecond)
        // Half a period (a 5 ms frame) does not cover the take: the rest is still due now.
        #expect(schedule.due(nextPeriod: next, queuedFrames: 240) == 98 * Self.millisecond)
        #expect(schedule.due(nextPeriod: next, queuedFrames: 1_200) == 118 * Self.millisecond)
    }

    @Test func theLeadGrowsWhenTheSpeakerRanDryAndRelaxesWhenItNoLongerDoes() {
        var schedule = Self.schedule()
        var now = 0 as MediaTime
        schedule.observe(starvedFrames: 960, lateness: 0, at: now)
        // Silence the speaker played before the first tick is not the engine's lateness.
        #expect(schedule.lead == 2 * Self.millisecond)
        for starved in [1_440, 1_920, 1_920, 2_400] {
            now += 10 * Self.millisecond
            schedule.observe(starvedFrames: starved, lateness: 0, at: now)
        }
        #expect(schedule.lead == 5 * Self.millisecond)
        // Never as much as the period itself.
        for step in 1...10 {
            now += 10 * Self.millisecond
            schedule.observe(starvedFrames: 2_400 + step * 480, lateness: 0, at: now)
        }
        #expect(schedule.lead == 9 * Self.millisecond)
        // Ten seconds without running dry take a quarter of a millisecond off, down to the start.
        let lastStarvation = now
        now += PlayoutSchedule.relaxAfter - Self.millisecond
        schedule.observe(starvedFrames: 7_200, lateness: 0, at: now)
        #expect(schedule.lead == 9 * Self.millisecond)
        now = lastStarvation + PlayoutSchedule.relaxAfter
        schedule.observe(starvedFrames: 7_200, lateness: 0, at: now)
        #expect(schedule.lead == 8_750_000)
        for _ in 0..<100 {
            now += PlayoutSchedule.relaxAfter
            schedule.observe(starvedFrames: 7_200, lateness: 0, at: now)
        }
        #expect(schedule.lead == 2 * Self.millisecond)
    }

    /// The engine came later than any lead could cover (the machine stalled it): the lead stays,
    /// and the quiet time it relaxes after is not restarted. A dry run within the largest lead
    /// still grows it.
    @Test func aDryRunAfterAStallLongerThanTheLargestLeadDoesNotGrowIt() {
        var schedule = Self.schedule()
        schedule.observe(starvedFrames: 0, lateness: 0, at: 0)
        schedule.observe(starvedFrames: 480, lateness: 9_000_001, at: 10 * Self.millisecond)
        #expect(schedule.lead == 2 * Self.millisecond)
        schedule.observe(starvedFrames: 960, lateness: 30 * Self.millisecond, at: 20 * Self.millisecond)
        #expect(schedule.lead == 2 * Self.millisecond)
        schedule.observe(starvedFrames: 1_440, lateness: 9 * Self.millisecond, at: 30 * Self.millisecond)
        #expect(schedule.lead == 3 * Self.millisecond)
        let lastGrowth = 30 * Self.millisecond
        schedule.observe(
            starvedFrames: 1_920, lateness: 40 * Self.millisecond, at: lastGrowth + PlayoutSchedule.relaxAfter / 2)
        schedule.observe(starvedFrames: 1_920, lateness: 0, at: lastGrowth + PlayoutSchedule.relaxAfter)
        #expect(schedule.lead == 2_750_000)
    }

    @Test func silenceAStalledSpeakerPlayedDoesNotCountAgainstTheEngine() {
        var schedule = Self.schedule()
        schedule.observe(starvedFrames: 0, lateness: 0, at: 0)
        schedule.pause()
        schedule.observe(starvedFrames: 4_800, lateness: 0, at: 10 * Self.millisecond)
        #expect(schedule.lead == 2 * Self.millisecond)
        schedule.observe(starvedFrames: 5_280, lateness: 0, at: 20 * Self.millisecond)
        #expect(schedule.lead == 3 * Self.millisecond)
    }

    @Test func aShortPeriodKeepsHalfOfItForTheSpeaker() {
        let schedule = PlayoutSchedule(period: 2_500_000, periodEngineFrames: 120)
        #expect(schedule.lead == 1_250_000)
    }
}
