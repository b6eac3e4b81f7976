import Foundation
import Synchronization
import VoiceCore

/// The thread that runs an engine in real time: once per frame duration, on absolute deadlines
/// of the monotonic clock so that scheduling delays never add up, it takes one captured frame,
/// ticks the engine and queues the mix for playback.
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
        var filled = 0
        var deadline = MediaTime.monotonicNow()
        while running.load(ordering: .acquiring) {
            var captured: UnsafeBufferPointer<Float>?
            if let input {
                filled += input.read(into: UnsafeMutableBufferPointer(rebasing: capture[filled..<samples]))
                if filled == samples {
                    captured = UnsafeBufferPointer(capture)
                    filled = 0
                }
            }
            engine.tick(at: MediaTime.monotonicNow(), captured: captured, output: mix)
            if let output, output.availableToWrite >= samples {
                _ = output.write(UnsafeBufferPointer(mix))
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
