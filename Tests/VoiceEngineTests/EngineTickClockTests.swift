import Testing
import VoiceCore

@testable import VoiceEngine

@Suite struct EngineTickClockTests {
    static let millisecond = MediaTime.nanosecondsPerMillisecond
    static let frame = 10 * millisecond

    static func timerClock() -> EngineTickClock {
        EngineTickClock(framePeriod: frame, frameSamples: 480, speaker: nil, speakerRingFrames: nil, start: 0)
    }

    /// Ticks while `decide` says so, as the engine thread does, and returns how many.
    static func tickAll(_ clock: inout EngineTickClock, at now: MediaTime, next: MediaTime? = nil, queued: Int = 0)
        -> (ticks: Int, then: EngineTickClock.Decision)
    {
        var ticks = 0
        var queued = queued
        while true {
            let decision = clock.decide(at: now, speakerNextPeriod: next, queuedFrames: queued)
            guard case .tick(let following) = decision, ticks < 100 else { return (ticks, decision) }
            ticks += 1
            queued += 480
            clock.ticked(at: now, writtenAt: now, followingSpeaker: following, starvedFrames: 0)
        }
    }

    @Test func theTimerTicksOnceAFrameAndCatchesUpALateWakeUpFrameByFrame() {
        var clock = Self.timerClock()
        #expect(Self.tickAll(&clock, at: 0) == (1, .wait(until: Self.frame)))
        #expect(Self.tickAll(&clock, at: Self.frame + 300_000) == (1, .wait(until: 2 * Self.frame)))
        // Woke 25 ms late: the frames of 20 and 30 ms go out at once, then the rhythm goes on.
        #expect(Self.tickAll(&clock, at: 45 * Self.millisecond) == (3, .wait(until: 5 * Self.frame)))
    }

    @Test func thePlayoutLeadIsReportedWhileASpeakerIsFollowedAndGrowsWhenItRanDry() {
        #expect(Self.timerClock().playoutLead == nil)
        var clock = EngineTickClock(
            framePeriod: Self.frame, frameSamples: 480, speaker: (Self.frame, 480), speakerRingFrames: 4_800,
            start: 0)
        #expect(clock.playoutLead == 2 * Self.millisecond)
        clock.ticked(
            at: 8 * Self.millisecond, writtenAt: 8 * Self.millisecond, followingSpeaker: true, starvedFrames: 0)
        clock.ticked(
            at: 18 * Self.millisecond, writtenAt: 18 * Self.millisecond, followingSpeaker: true, starvedFrames: 480)
        #expect(clock.playoutLead == 3 * Self.millisecond)
    }

    /// How late the thread came is judged against the time it asked to wake at and, for the
    /// frame, against the time the frame was due: a dry run after a wake-up or a tick later than
    /// the largest lead (9 ms with 10 ms periods) leaves the lead as it was.
    @Test func theLeadGrowsOnlyForADryRunALeadCouldHavePrevented() {
        var clock = EngineTickClock(
            framePeriod: Self.frame, frameSamples: 480, speaker: (Self.frame, 480), speakerRingFrames: 9_600, start: 0)
        var starved = 0
        /// Asks to wake when the frame for the speaker's take at `take` is due (the lead before it),
        /// wakes at `woke` (when the speaker's next take is `takeAtWake`), writes the frame at
        /// `written` and finds the speaker ran dry once more.
        func tick(take: MediaTime, woke: MediaTime, takeAtWake: MediaTime? = nil, written: MediaTime? = nil) {
            _ = clock.decide(at: take - Self.frame, speakerNextPeriod: take, queuedFrames: 0)
            clock.waited()
            #expect(
                clock.decide(at: woke, speakerNextPeriod: takeAtWake ?? take, queuedFrames: 0)
                    == .tick(followingSpeaker: true))
            clock.ticked(at: woke, writtenAt: written ?? woke, followingSpeaker: true, starvedFrames: starved)
            starved += 480
        }
        tick(take: 100 * Self.millisecond, woke: 98 * Self.millisecond)
        #expect(clock.playoutLead == 2 * Self.millisecond)
        // Woke 5 ms late: the speaker ran dry, and a longer lead would have covered it.
        tick(take: 110 * Self.millisecond, woke: 113 * Self.millisecond)
        #expect(clock.playoutLead == 3 * Self.millisecond)
        // Woke 30 ms late, after the takes at 150–170 ms: a machine stall no lead covers. The frame
        // itself goes to the take at 180 ms, on time.
        tick(take: 150 * Self.millisecond, woke: 177 * Self.millisecond, takeAtWake: 180 * Self.millisecond)
        #expect(clock.playoutLead == 3 * Self.millisecond)
        // Woke on time, but the frame was written 12 ms after it was due.
        tick(take: 190 * Self.millisecond, woke: 187 * Self.millisecond, written: 199 * Self.millisecond)
        #expect(clock.playoutLead == 3 * Self.millisecond)
        // Woke on time and wrote within 9 ms of the due time: a longer lead would have helped.
        tick(take: 200 * Self.millisecond, woke: 197 * Self.millisecond, written: 205 * Self.millisecond)
        #expect(clock.playoutLead == 4 * Self.millisecond)
    }

    @Test func theTimerStartsAfreshWhenFarBehind() {
        var clock = Self.timerClock()
        _ = Self.tickAll(&clock, at: 0)
        // A 200 ms stall: no burst of twenty frames, one frame and a fresh start.
        let now = 200 * Self.millisecond + 1
        #expect(Self.tickAll(&clock, at: now) == (1, .wait(until: now + Self.frame)))
    }

    @Test func followingTheSpeakerAFrameIsMixedJustBeforeEachPeriod() {
        var clock = EngineTickClock(
            framePeriod: Self.frame, frameSamples: 480, speaker: (Self.frame, 480), speakerRingFrames: 9_600, start: 0)
        let next = 100 * Self.millisecond
        #expect(
            clock.decide(at: 90 * Self.millisecond, speakerNextPeriod: next, queuedFrames: 0)
                == .wait(until: 98 * Self.millisecond))
        #expect(
            Self.tickAll(&clock, at: 98 * Self.millisecond, next: next) == (1, .wait(until: 108 * Self.millisecond)))
        // Woken late, past the lead but before the take: the frame still goes out at once.
        clock.waited()
        #expect(
            Self.tickAll(&clock, at: 129 * Self.millisecond, next: 130 * Self.millisecond) == (
                1, .wait(until: 138 * Self.millisecond)
            ))
    }

    @Test func aRingThatRefusesFramesCannotKeepTheClockTicking() {
        // The speaker's ring holds two frames and never shows them queued (it refuses them).
        var clock = EngineTickClock(
            framePeriod: Self.frame, frameSamples: 480, speaker: (Self.frame, 480), speakerRingFrames: 960, start: 0)
        let now = 99 * Self.millisecond
        var ticks = 0
        while case .tick = clock.decide(at: now, speakerNextPeriod: 100 * Self.millisecond, queuedFrames: 0),
            ticks < 100
        {
            ticks += 1
            clock.ticked(at: now, writtenAt: now, followingSpeaker: true, starvedFrames: 0)
        }
        #expect(ticks == 2)
        #expect(
            clock.decide(at: now, speakerNextPeriod: 100 * Self.millisecond, queuedFrames: 0)
                == .wait(until: now + Self.frame))
        clock.waited()
        #expect(
            clock.decide(at: now, speakerNextPeriod: 100 * Self.millisecond, queuedFrames: 0)
                == .tick(followingSpeaker: true))
    }

    @Test func whenTheSpeakerStallsTheTimerTakesOverAFrameAfterItsLastTick() {
        var clock = EngineTickClock(
            framePeriod: Self.frame, frameSamples: 480, speaker: (Self.frame, 480), speakerRingFrames: 9_600, start: 0)
        _ = Self.tickAll(&clock, at: 98 * Self.millisecond, next: 100 * Self.millisecond)
        clock.waited()
        #expect(
            clock.decide(at: 105 * Self.millisecond, speakerNextPeriod: nil, queuedFrames: 480)
                == .wait(until: 108 * Self.millisecond))
        #expect(Self.tickAll(&clock, at: 108 * Self.millisecond) == (1, .wait(until: 118 * Self.millisecond)))
    }

    /// A speaker taking a 10 ms period every 10 ms from 10 ms, and an engine of 20 ms frames
    /// ticking when the clock says, handing it what the clock says; a remote voice can start from
    /// `voiceReady` on. Returns each tick's time and how much it handed the speaker.
    static func followSpeaker(voiceReady: MediaTime, until end: MediaTime, capturesPerTick: Bool = false)
        -> [(at: MediaTime, samples: Int)]
    {
        let period = 10 * millisecond
        var clock = EngineTickClock(
            framePeriod: 2 * period, frameSamples: 960, speaker: (period, 480), speakerRingFrames: 9_600,
            capturesPerTick: capturesPerTick, start: 0)
        var ticks: [(at: MediaTime, samples: Int)] = []
        var queued = 0
        var nextTake = period
        var now: MediaTime = 0
        var playing = false
        while now < end {
            while nextTake <= now {
                queued = max(queued - 480, 0)
                nextTake += period
            }
            switch clock.decide(at: now, speakerNextPeriod: nextTake, queuedFrames: queued) {
            case .tick(let following):
                // The mix of a tick starts the voice when it is ready.
                playing = playing || now >= voiceReady
                let samples = clock.samplesToWrite(remoteVoicePlaying: playing)
                ticks.append((now, samples))
                queued += samples
                clock.ticked(at: now, writtenAt: now, followingSpeaker: following, starvedFrames: 0)
            case .wait(let until):
                clock.waited()
                now = until
            }
        }
        return ticks
    }

    /// Until a remote voice plays, the engine hands the speaker a period at a time, so the first
    /// voice starts at the first period it is ready for, not at the next frame of an arbitrary grid.
    @Test func untilAVoicePlaysTheSpeakerIsFedAPeriodAtATime() {
        let ms = Self.millisecond
        let ticks = Self.followSpeaker(voiceReady: 31 * ms, until: 100 * ms)
        #expect(ticks.map(\.at) == [8, 18, 28, 38, 58, 78, 98].map { $0 * ms })
        #expect(ticks.map(\.samples) == [480, 480, 480, 960, 960, 960, 960])

        // A microphone read a frame per tick keeps ticks a frame apart: the voice waits for 48 ms.
        let framed = Self.followSpeaker(voiceReady: 31 * ms, until: 100 * ms, capturesPerTick: true)
        #expect(framed.map(\.at) == [8, 28, 48, 68, 88].map { $0 * ms })
        #expect(framed.allSatisfy { $0.samples == 960 })
    }

    @Test func framesThatPeriodsDoNotDivideAndTheTimerWriteWholeFrames() {
        let uneven = EngineTickClock(
            framePeriod: Self.frame, frameSamples: 480, speaker: (3 * Self.millisecond, 144),
            speakerRingFrames: 9_600, start: 0)
        #expect(uneven.samplesToWrite(remoteVoicePlaying: false) == 480)
        #expect(Self.timerClock().samplesToWrite(remoteVoicePlaying: false) == 480)
    }
}
