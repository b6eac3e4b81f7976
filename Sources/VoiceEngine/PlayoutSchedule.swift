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
    /// queue was empty: a rise since the last tick means the frame came too late.
    mutating func observe(starvedFrames: Int, at now: MediaTime) {
        defer { starvedAtLastTick = starvedFrames }
        if let last = starvedAtLastTick, starvedFrames > last {
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
