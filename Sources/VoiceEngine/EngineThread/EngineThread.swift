import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The thread that runs an engine in real time: it sends what the microphone captured and ticks
/// the engine once per frame, queueing the mix for the speaker.
///
/// **When.** Where the devices tell their rhythm (`PeriodCadence`), they set the time: each
/// captured frame is sent the moment the microphone delivers it, and each frame is mixed just
/// before the speaker takes it (`EngineTickClock`), so neither waits for a tick of an unrelated
/// phase. Where they do not (files on demand, devices without a cadence, or a speaker that
/// stalled), the thread ticks on absolute deadlines of the monotonic clock, one frame duration
/// apart, so that scheduling delays never add up.
///
/// A packet's timestamp is its frame's number, so a frame is sent as soon as its audio arrived:
/// a real-time microphone's every whole frame, however many came at once. Taking one a tick kept
/// a device's late delivery (a server that missed cycles, then caught up) standing in the backlog,
/// and every later packet then went out that much after its timestamp; each stall stepped the
/// listener's measured delays up for good (its reference forgets only after seconds) and its
/// jitter-buffer target climbed past 100 ms on a loopback call.
///
/// **Who touches the engine's state.** While it runs, this thread alone: control calls and
/// signalling hand it commands (`EngineCommandQueue`), which it runs when woken for them, or
/// after the next frame when that is due within `commandRoom`; datagrams wait in a lock-free
/// inbox. So it never waits for another thread. The thread that starts it hands it the state
/// under the engine's lock, and it takes that lock once more only to give the state back when it
/// stops. It allocates nothing per frame; a command that changes what exists (a call, a player, a
/// channel started) may.
///
/// It asks for real-time (SCHED_FIFO) priority, below the device threads', where the process may
/// have it: on a busy machine a time-sharing thread wakes tens of milliseconds late, and every
/// such wake-up is a late packet for the listener and a gap for the speaker.
final class EngineThread: Sendable {
    private let thread: AudioThread
    /// How late the thread woke from its timed waits.
    let lateness = DurationRecorder()
    /// How long it ran commands, each turn that had any.
    let commandRuns = DurationRecorder()

    /// How long before a frame is due the thread still runs commands that woke it: a frame held up
    /// past the playout lead (2 ms) is a gap for the speaker, and a command that changes what exists
    /// (a player's decoder made, a channel started) takes up to about 0.7 ms on a small machine.
    /// Any longer, and callers wait for a whole tick more often.
    static let commandRoom = MediaTime.milliseconds(1)

    /// Below the device threads' (70), so that a device is never kept waiting by the engine.
    static let realTimePriority: Int32 = 60

    /// Starts running `engine` with its devices on a thread of its own.
    init(engine: VoiceEngine, input: (any AudioInput)?, output: (any AudioOutput)?) throws(AudioThreadError) {
        let (lateness, commandRuns) = (self.lateness, self.commandRuns)
        // Commands wake the thread where it sleeps: on the microphone's periods, or on its own counter.
        let microphone = input?.pacing == .realTime ? input?.periodCadence : nil
        let doorbell = WakeCounter()
        // Taken before the thread starts, so that every call from now on is the thread's to run.
        engine.engineThreadTakesCore {
            if let microphone { microphone.wakeWaiter() } else { doorbell.bump() }
        }
        do {
            thread = try AudioThread(name: "voice-engine", scheduling: .realTime(priority: Self.realTimePriority)) {
                thread in
                Self.run(
                    engine, input: input, output: output, until: thread, lateness: lateness, commandRuns: commandRuns,
                    microphone: microphone, doorbell: doorbell)
            }
        } catch {
            engine.engineThreadReturnsCore()
            throw error
        }
    }

    /// The thread's POSIX id while it runs, for per-thread measurements.
    var systemThread: pthread_t? { thread.systemThread }

    var isRealTimeScheduled: Bool { thread.isRealTimeScheduled }

    /// Stops the thread and waits until it has. Safe to call more than once.
    func stop() {
        thread.join()
    }

    private static func run(
        _ engine: VoiceEngine, input: (any AudioInput)?, output: (any AudioOutput)?, until thread: AudioThread,
        lateness: DurationRecorder, commandRuns: DurationRecorder, microphone: PeriodCadence?, doorbell: WakeCounter
    ) {
        let samples = engine.frameSamples
        let period = engine.configuration.frameDuration.nanoseconds
        // A real-time microphone is emptied whenever it delivers (its ring must not fill behind
        // the engine's back); an on-demand source gives exactly what is asked, one frame per tick.
        let backlog =
            input?.pacing == .realTime
            ? CaptureBacklog(frameSamples: samples, capacitySamples: 24_000, framePeriod: period) : nil
        let capture =
            input != nil && backlog == nil ? UnsafeMutableBufferPointer<Float>.allocate(capacity: samples) : nil
        let channels = engine.outputChannels
        let mix = UnsafeMutableBufferPointer<Float>.allocate(capacity: samples * channels)
        capture?.initialize(repeating: 0)
        mix.initialize(repeating: 0)
        defer {
            capture?.deallocate()
            mix.deallocate()
        }
        var playback = output.map { PlaybackPacer(output: $0, frameSamples: samples) }
        let speaker = playback?.capacity != nil ? output?.periodCadence : nil
        var clock = EngineTickClock(
            framePeriod: period, frameSamples: samples, speaker: speaker.map { ($0.period, $0.periodEngineFrames) },
            speakerRingFrames: playback?.capacity, capturesPerTick: capture != nil, start: MediaTime.monotonicNow())
        var microphoneEnded = false
        var filled = 0
        defer { engine.engineThreadReturnsCore() }
        while !thread.shouldStop {
            // Read before the microphone's ring is: a period delivered after this ends the wait.
            let seenPeriods = microphone?.periodCount ?? doorbell.value
            let now = MediaTime.monotonicNow()
            let decision = clock.decide(
                at: now, speakerNextPeriod: speaker?.nextPeriod(at: now), queuedFrames: playback?.queuedFrames ?? 0)
            var wakeTime: MediaTime?
            var followingSpeaker = false
            switch decision {
            case .wait(let until): wakeTime = until
            case .tick(let following): followingSpeaker = following
            }
            let ticks = wakeTime == nil
            var captured: UnsafeBufferPointer<Float>?
            if ticks, let input, let capture {
                filled += input.read(into: UnsafeMutableBufferPointer(rebasing: capture[filled..<samples]))
                if filled == samples {
                    captured = UnsafeBufferPointer(capture)
                    filled = 0
                }
            }
            // One turn: what the microphone delivered, then the frame, if it is due, then the
            // commands, unless a frame is due too soon after.
            let runsCommands = wakeTime.map { $0 - now >= commandRoom } ?? true
            engine.engineThreadTurn(runsCommands: runsCommands, commandRuns: commandRuns) { core in
                // A source that has ended (a file) delivers nothing more, and the input meter would
                // hold the level of its last frame for the rest of the session.
                defer {
                    if !microphoneEnded, input?.isExhausted == true {
                        microphoneEnded = true
                        core.inputMeter.reset()
                    }
                }
                let speakerQueued = playback?.queuedFrames ?? 0
                if let input, let backlog {
                    // Every frame the microphone has delivered goes out now, several after it
                    // caught up from a stall: one at a time would leave the stall standing behind it.
                    backlog.takeFrames(from: input, at: now) { event in
                        switch event {
                        case .lost(let frames): core.skipLostCapture(frames: frames)
                        case .captured(let frame, let framesAfter):
                            core.sendCaptured(frame, now: now, queuedSamples: speakerQueued + framesAfter * samples)
                        }
                    }
                }
                guard ticks else { return }
                core.counters.deviceCatchUp = EngineCounters.DeviceCatchUp(
                    captureSamplesDropped: backlog?.droppedSamples ?? 0,
                    playbackFramesSkipped: playback?.skippedFrames ?? 0,
                    playbackLoudFramesSkipped: playback?.skippedLoudFrames ?? 0,
                    captureFramesLost: backlog?.lostFrames ?? 0,
                    playoutLeadMilliseconds: clock.playoutLead?.milliseconds, speaker: output?.statistics,
                    microphone: input?.statistics, playbackSamplesReclaimed: playback?.reclaimedSamples ?? 0)
                core.tick(now: now, captured: captured, speakerQueuedSamples: speakerQueued, output: mix)
                // Queued in the same turn, so that the echo canceller's reference is exactly what
                // the speaker was given (a frame left out to keep the queue short is not).
                let count = clock.samplesToWrite(remoteVoicePlaying: core.isPlayingRemoteVoice)
                if let written = playback?.write(UnsafeBufferPointer(rebasing: mix[0..<count * channels])) {
                    core.speakerPlayed(written)
                }
            }
            if let wakeTime {
                clock.waited()
                if let microphone {
                    microphone.waitForPeriod(after: seenPeriods, until: wakeTime)
                } else {
                    doorbell.wait(after: seenPeriods, until: wakeTime)
                }
                // A wait the microphone or a command ended early was not late; one that ran to its
                // deadline may be.
                let woke = MediaTime.monotonicNow()
                if woke >= wakeTime { lateness.record(woke - wakeTime) }
            } else {
                clock.ticked(
                    at: now, writtenAt: MediaTime.monotonicNow(), followingSpeaker: followingSpeaker,
                    starvedFrames: output?.statistics.ringStarvedFrames ?? 0)
            }
        }
    }
}
