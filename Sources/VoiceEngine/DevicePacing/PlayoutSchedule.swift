import VoiceCore

/// When the engine mixes its next frame for a real-time speaker that tells its rhythm: just
/// before the speaker takes the first period its queue does not cover yet.
///
/// The speaker takes one period at a time. A frame mixed right after a take waits a whole period
/// in the queue; one mixed just before the next take waits only `lead`, and the packets that came
/// in between are already in it. On a call between two devices of the same rhythm a packet
/// captured at one period boundary then reaches the other speaker at the next one, as a bare copy
/// from microphone to speaker would: the engine adds only the codec's own delay.
///
/// `lead` must hold the engine thread's wake-up and the tick's work. It starts at
/// `initialLeadMilliseconds`, grows by a millisecond each time the speaker still ran dry between
/// two ticks (the engine came too late: a busy machine), up to a period less a millisecond, and
/// shrinks back by a quarter millisecond after every `relaxAfter` without one, as a sound
/// server's timer-based scheduling adjusts its watermark.
///
/// A dry run after the engine came later than the largest lead allows (the machine stalled it
/// for longer) does not grow the lead: no lead could have covered it, and the lead would only
/// add its length to every frame for minutes. In calls on a VM losing 8–20 % of its time to
/// its host, a quarter to two thirds of the dry runs came after the engine was 10–60 ms late,
/// against a largest lead of 9 ms.
struct PlayoutSchedule {
    /// One period of the speaker, and its length in engine (48 kHz) frames.
    let period: MediaTime
    let periodEngineFrames: Int
    private(set) var lead: MediaTime
    private let minimumLead: MediaTime
    private let maximumLead: MediaTime
    /// The speaker's starved-frame count at the last tick; nil before the first.
    private var starvedAtLastTick: Int?
    private var lastStarvation: MediaTime = 0

    static let initialLeadMilliseconds = 2.0
    static let relaxAfter = 10 * MediaTime.nanosecondsPerSecond

    init(period: MediaTime, periodEngineFrames: Int) {
        self.period = max(period, 1)
        self.periodEngineFrames = max(periodEngineFrames, 1)
        maximumLead = max(period - MediaTime.nanosecondsPerMillisecond, period / 2)
        minimumLead = min(MediaTime.milliseconds(Self.initialLeadMilliseconds), period / 2)
        lead = minimumLead
    }

    /// When the next frame must be mixed, given when the speaker takes its next period and how
    /// many frames already wait in its queue. In the past when it is overdue.
    func due(nextPeriod: MediaTime, queuedFrames: Int) -> MediaTime {
        let covered = max(queuedFrames, 0) / periodEngineFrames
        return nextPeriod + MediaTime(covered) * period - lead
    }

    /// Called at every tick with the speaker's count of frames it played as silence because the
    /// queue was empty: a rise since the last tick means a frame came too late. `lateness` is the
    /// most the engine thread came after its time since the last tick (woke after the time it
    /// asked for, or wrote the frame after it was due).
    mutating func observe(starvedFrames: Int, lateness: MediaTime, at now: MediaTime) {
        defer { starvedAtLastTick = starvedFrames }
        if let last = starvedAtLastTick, starvedFrames > last {
            guard lateness <= maximumLead else { return }
            lead = min(lead + MediaTime.nanosecondsPerMillisecond, maximumLead)
            lastStarvation = now
        } else if now - lastStarvation >= Self.relaxAfter, lead > minimumLead {
            lead = max(lead - MediaTime.nanosecondsPerMillisecond / 4, minimumLead)
            lastStarvation = now
        }
    }

    /// Forgets the speaker's count: ticks stopped following the speaker for a while (it stalled)
    /// and the silence it played meanwhile was not the engine's lateness.
    mutating func pause() {
        starvedAtLastTick = nil
    }
}
