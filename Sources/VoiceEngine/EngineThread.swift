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
/// control changes. The device threads on either side of it only touch their rings.
final class EngineThread: Sendable {
    private let engine: VoiceEngine
    private let input: (any AudioInput)?
    private let output: (any AudioOutput)?
    private let running = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(engine: VoiceEngine, input: (any AudioInput)?, output: (any AudioOutput)?) {
        self.engine = engine
        self.input = input
        self.output = output
    }

    func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
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

    /// Frames a backlog must stand, on either side, before it is trimmed: long enough that ordinary
    /// scheduling jitter never costs audio, short enough that a stall's delay is gone within a second.
    static let standingWindowFrames = 50

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
        // A real-time microphone is emptied every frame (its ring must not fill behind the
        // engine's back); an on-demand source gives exactly what is asked, one frame per tick.
        let backlog =
            input?.pacing == .realTime
            ? CaptureBacklog(
                frameSamples: samples, capacitySamples: 24_000, windowFrames: Self.standingWindowFrames) : nil
        var playback = output.map { PlaybackPacer(output: $0, frameSamples: samples) }
        var filled = 0
        var reported = EngineCounters.DeviceCatchUp()
        var deadline = MediaTime.monotonicNow()
        while running.load(ordering: .acquiring) {
            var captured: UnsafeBufferPointer<Float>?
            if let input {
                if let backlog {
                    // Every frame the microphone has delivered goes out now, several after it
                    // caught up from a stall: one a tick would leave the stall standing behind it.
                    let now = MediaTime.monotonicNow()
                    backlog.takeFrames(from: input, into: capture) { frame in
                        engine.withCore { $0.sendCaptured(frame, now: now) }
                    }
                } else {
                    filled += input.read(into: UnsafeMutableBufferPointer(rebasing: capture[filled..<samples]))
                    if filled == samples {
                        captured = UnsafeBufferPointer(capture)
                        filled = 0
                    }
                }
            }
            engine.tick(at: MediaTime.monotonicNow(), captured: captured, output: mix)
            playback?.write(UnsafeBufferPointer(mix))
            let catchUp = EngineCounters.DeviceCatchUp(
                captureSamplesDropped: backlog?.droppedSamples ?? 0,
                playbackFramesSkipped: playback?.skippedFrames ?? 0)
            if catchUp != reported {
                engine.withCore { $0.counters.deviceCatchUp = catchUp }
                reported = catchUp
            }
            deadline += period
            let now = MediaTime.monotonicNow()
            if deadline < now - 4 * period {
                // Far behind (the process was stopped, or the machine stalled): start afresh
                // instead of running a burst of frames to catch up.
                deadline = now
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
