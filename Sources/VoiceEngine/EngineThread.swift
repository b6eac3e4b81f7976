import VoiceCore

/// The thread that runs an engine in real time: once per frame duration, on absolute deadlines
/// of the monotonic clock so that scheduling delays never add up, it sends what was captured,
/// ticks the engine and queues the mix for playback.
///
/// A packet's timestamp is its frame's number, so a frame is sent in the tick its audio arrived:
/// a real-time microphone's every whole frame, however many came at once. Taking one a tick kept
/// a device's late delivery (a server that missed cycles, then caught up) standing in the backlog,
/// and every later packet then went out that much after its timestamp; each stall stepped the
/// listener's measured delays up for good (its reference forgets only after seconds) and its
/// jitter-buffer target climbed past 100 ms on a loopback call.
///
/// This is not an audio thread: it takes the engine's lock and may allocate while handling
/// control changes. The device threads on either side of it only touch their rings. It still
/// asks for real-time (SCHED_FIFO) priority, below the device threads', where the process may
/// have it: on a busy machine a time-sharing thread wakes tens of milliseconds late, and every
/// such wake-up is a late packet for the listener and a gap for the speaker. The engine's lock
/// inherits priority, so the threads it shares the lock with cannot hold it up for long.
final class EngineThread: Sendable {
    private let thread: AudioThread

    /// Below the device threads' (70), so that a device is never kept waiting by the engine.
    static let realTimePriority: Int32 = 60

    /// Starts running `engine` with its devices on a thread of its own.
    init(engine: VoiceEngine, input: (any AudioInput)?, output: (any AudioOutput)?) throws(AudioThreadError) {
        thread = try AudioThread(name: "voice-engine", scheduling: .realTime(priority: Self.realTimePriority)) {
            thread in
            Self.run(engine, input: input, output: output, until: thread)
        }
    }

    /// Stops the thread and waits until it has. Safe to call more than once.
    func stop() {
        thread.join()
    }

    private static func run(
        _ engine: VoiceEngine, input: (any AudioInput)?, output: (any AudioOutput)?, until thread: AudioThread
    ) {
        let samples = engine.frameSamples
        let period = engine.configuration.frameDuration.nanoseconds
        // A real-time microphone is emptied every tick (its ring must not fill behind the
        // engine's back); an on-demand source gives exactly what is asked, one frame per tick.
        let backlog =
            input?.pacing == .realTime
            ? CaptureBacklog(frameSamples: samples, capacitySamples: 24_000, framePeriod: period) : nil
        let capture =
            input != nil && backlog == nil ? UnsafeMutableBufferPointer<Float>.allocate(capacity: samples) : nil
        let mix = UnsafeMutableBufferPointer<Float>.allocate(capacity: samples)
        capture?.initialize(repeating: 0)
        mix.initialize(repeating: 0)
        defer {
            capture?.deallocate()
            mix.deallocate()
        }
        var playback = output.map { PlaybackPacer(output: $0, frameSamples: samples) }
        var filled = 0
        var deadline = MediaTime.monotonicNow()
        while !thread.shouldStop {
            var captured: UnsafeBufferPointer<Float>?
            if let input, let capture {
                filled += input.read(into: UnsafeMutableBufferPointer(rebasing: capture[filled..<samples]))
                if filled == samples {
                    captured = UnsafeBufferPointer(capture)
                    filled = 0
                }
            }
            let now = MediaTime.monotonicNow()
            // One turn of the lock a tick: what the microphone delivered, then the frame itself.
            engine.withCore { core in
                if let input, let backlog {
                    // Every frame the microphone has delivered goes out now, several after it
                    // caught up from a stall: one a tick would leave the stall standing behind it.
                    backlog.takeFrames(from: input, at: now) { event in
                        switch event {
                        case .lost(let frames): core.skipLostCapture(frames: frames)
                        case .captured(let frame): core.sendCaptured(frame, now: now)
                        }
                    }
                }
                core.counters.deviceCatchUp = EngineCounters.DeviceCatchUp(
                    captureSamplesDropped: backlog?.droppedSamples ?? 0,
                    playbackFramesSkipped: playback?.skippedFrames ?? 0,
                    playbackLoudFramesSkipped: playback?.skippedLoudFrames ?? 0,
                    captureFramesLost: backlog?.lostFrames ?? 0)
                core.tick(now: now, captured: captured, output: mix)
            }
            playback?.write(UnsafeBufferPointer(mix))
            deadline += period
            if deadline < MediaTime.monotonicNow() - 4 * period {
                // Far behind (the process was stopped, or the machine stalled): start afresh
                // instead of running a burst of frames to catch up.
                deadline = MediaTime.monotonicNow()
            }
            MediaTime.sleep(until: deadline)
        }
    }
}
