import Foundation
import Synchronization
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
    private let engine: VoiceEngine
    private let input: (any AudioInput)?
    private let output: (any AudioOutput)?
    private let running = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Below the device threads' (70), so that a device is never kept waiting by the engine.
    static let realTimePriority: Int32 = 60

    init(engine: VoiceEngine, input: (any AudioInput)?, output: (any AudioOutput)?) {
        self.engine = engine
        self.input = input
        self.output = output
    }

    func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            var parameters = sched_param()
            parameters.sched_priority = Self.realTimePriority
            // Refused without the privilege: the thread then keeps the default policy.
            _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
            run()
            done.signal()
        }
        thread.name = "voice-engine"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        done.wait()
    }

    private func run() {
        let samples = engine.frameSamples
        let period = engine.configuration.frameDuration.nanoseconds
        let capture = UnsafeMutableBufferPointer<Float>.allocate(capacity: samples)
        let mix = UnsafeMutableBufferPointer<Float>.allocate(capacity: samples)
        capture.initialize(repeating: 0)
        mix.initialize(repeating: 0)
        defer {
            capture.deallocate()
            mix.deallocate()
        }
        // A real-time microphone is emptied every tick (its ring must not fill behind the
        // engine's back); an on-demand source gives exactly what is asked, one frame per tick.
        let backlog =
            input?.pacing == .realTime
            ? CaptureBacklog(frameSamples: samples, capacitySamples: 24_000, framePeriod: period) : nil
        var playback = output.map { PlaybackPacer(output: $0, frameSamples: samples) }
        var filled = 0
        var deadline = MediaTime.monotonicNow()
        while running.load(ordering: .acquiring) {
            var captured: UnsafeBufferPointer<Float>?
            if let input, backlog == nil {
                filled += input.read(into: UnsafeMutableBufferPointer(rebasing: capture[filled..<samples]))
                if filled == samples {
                    captured = UnsafeBufferPointer(capture)
                    filled = 0
                }
            }
            let catchUp = EngineCounters.DeviceCatchUp(
                captureSamplesDropped: backlog?.droppedSamples ?? 0,
                playbackFramesSkipped: playback?.skippedFrames ?? 0,
                playbackLoudFramesSkipped: playback?.skippedLoudFrames ?? 0,
                captureFramesLost: backlog?.lostFrames ?? 0)
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
                core.counters.deviceCatchUp = catchUp
                core.tick(now: now, captured: captured, output: mix)
            }
            playback?.write(UnsafeBufferPointer(mix))
            deadline += period
            if deadline < MediaTime.monotonicNow() - 4 * period {
                // Far behind (the process was stopped, or the machine stalled): start afresh
                // instead of running a burst of frames to catch up.
                deadline = MediaTime.monotonicNow()
            }
            Self.sleep(until: deadline)
        }
    }

    private static func sleep(until deadline: MediaTime) {
        var target = timespec(
            tv_sec: Int(deadline / MediaTime.nanosecondsPerSecond),
            tv_nsec: Int(deadline % MediaTime.nanosecondsPerSecond))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}
