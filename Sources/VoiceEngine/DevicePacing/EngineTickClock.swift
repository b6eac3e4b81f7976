import VoiceCore

/// Decides when the engine thread ticks: just before a real-time speaker takes its next period
/// while the speaker tells its rhythm (`PlayoutSchedule`), else on the engine's own timer, one
/// frame duration apart on absolute deadlines so that scheduling delays never add up.
///
/// On the timer a late wake-up is caught up with frames back to back, as a sound card would have
/// consumed them, but never more than `maximumCatchUpFrames`: further behind (the process was
/// stopped, or the machine stalled) the timer starts afresh instead. Following the speaker, never
/// more frames in a row than its ring holds, so that a ring refusing frames cannot keep the
/// thread ticking without a pause. When the speaker stalls, the timer takes over a frame after
/// the last tick that followed it.
///
/// Until a remote voice plays, a tick that follows the speaker hands it one of its periods, not a
/// frame (`samplesToWrite`), where periods divide the frame: the mixer pulls whole frames, so the
/// first frame of a talk spurt could otherwise start only on the grid of frames the engine
/// happened to begin with, up to a frame later than the listener's buffer needs. Ticking a
/// period at a time while nothing plays, the first voice starts at the first period it is ready
/// for, and the frames that follow keep that phase.
///
/// Pure: the caller passes the time and what the devices say, so it runs in virtual time.
struct EngineTickClock {
    enum Decision: Equatable {
        /// Mix a frame now; `followingSpeaker` when the speaker's rhythm set the time.
        case tick(followingSpeaker: Bool)
        /// Nothing is due before this time.
        case wait(until: MediaTime)
    }

    let framePeriod: MediaTime
    let frameSamples: Int
    /// What a tick hands the speaker while no remote voice plays: one of its periods, or nil
    /// (a frame) without a speaker to follow, periods that do not divide the frame, or a
    /// microphone read a frame per tick.
    let idleSpeakerSamples: Int?
    private var schedule: PlayoutSchedule?
    private let burstLimit: Int
    private var burst = 0
    private var timerDeadline: MediaTime
    /// The time the last decision told the thread to wait until, until it next decides.
    private var requestedWake: MediaTime?
    /// When the frame of the tick under way was due, following the speaker.
    private var dueOfTick: MediaTime?
    /// The most the thread came after its time since the last tick.
    private var latenessSinceTick: MediaTime = 0

    static let maximumCatchUpFrames = 4

    /// How long before the speaker takes a frame it is mixed; nil without a speaker to follow.
    var playoutLead: MediaTime? { schedule?.lead }

    /// - Parameters:
    ///   - speaker: the speaker's period and its length in engine frames, when it tells its rhythm.
    ///   - speakerRingFrames: what the speaker's ring holds, which bounds the frames in a row.
    ///   - capturesPerTick: each tick reads a frame from an on-demand microphone, so ticks must
    ///     stay a frame apart.
    init(
        framePeriod: MediaTime, frameSamples: Int, speaker: (period: MediaTime, engineFrames: Int)?,
        speakerRingFrames: Int?, capturesPerTick: Bool = false, start: MediaTime
    ) {
        self.framePeriod = max(framePeriod, 1)
        self.frameSamples = frameSamples
        if let periodSamples = speaker?.engineFrames, !capturesPerTick, periodSamples > 0,
            periodSamples < frameSamples, frameSamples % periodSamples == 0
        {
            idleSpeakerSamples = periodSamples
        } else {
            idleSpeakerSamples = nil
        }
        schedule = speaker.map { PlayoutSchedule(period: $0.period, periodEngineFrames: $0.engineFrames) }
        burstLimit = max(1, (speakerRingFrames ?? frameSamples) / max(frameSamples, 1))
        timerDeadline = start
    }

    /// How much of the tick's mix to hand the speaker: a frame, or while no remote voice plays,
    /// one of its periods.
    func samplesToWrite(remoteVoicePlaying: Bool) -> Int {
        remoteVoicePlaying ? frameSamples : idleSpeakerSamples ?? frameSamples
    }

    /// What to do at `now`, given when the speaker takes its next period (nil without a rhythm
    /// to follow) and the frames waiting in its ring.
    mutating func decide(at now: MediaTime, speakerNextPeriod: MediaTime?, queuedFrames: Int) -> Decision {
        if let wake = requestedWake {
            latenessSinceTick = max(latenessSinceTick, now - wake)
            requestedWake = nil
        }
        dueOfTick = nil
        if let schedule, let next = speakerNextPeriod {
            let due = schedule.due(nextPeriod: next, queuedFrames: queuedFrames)
            guard now >= due else { return wait(until: due) }
            guard burst < burstLimit else { return wait(until: now + framePeriod) }
            dueOfTick = due
            return .tick(followingSpeaker: true)
        }
        if timerDeadline < now - MediaTime(Self.maximumCatchUpFrames) * framePeriod {
            timerDeadline = now
        }
        return now >= timerDeadline ? .tick(followingSpeaker: false) : wait(until: timerDeadline)
    }

    /// Tells the thread to wait until `wake`, and remembers it to judge how late it woke.
    private mutating func wait(until wake: MediaTime) -> Decision {
        requestedWake = wake
        return .wait(until: wake)
    }

    /// Records the tick that started at `now` and wrote its frame at `writtenAt`; `starvedFrames`
    /// is the speaker's count of frames it played as silence because its ring was empty.
    mutating func ticked(at now: MediaTime, writtenAt: MediaTime, followingSpeaker: Bool, starvedFrames: Int) {
        defer { latenessSinceTick = 0 }
        if followingSpeaker {
            burst += 1
            let writtenLate = dueOfTick.map { writtenAt - $0 } ?? 0
            schedule?.observe(
                starvedFrames: starvedFrames, lateness: max(latenessSinceTick, writtenLate), at: now)
            timerDeadline = now + framePeriod
        } else {
            schedule?.pause()
            timerDeadline += framePeriod
        }
    }

    /// Records that the thread waited: the next tick following the speaker starts a new run.
    mutating func waited() {
        burst = 0
    }
}
