import Synchronization
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A speaker (or any ALSA playback PCM) taking 48 kHz float audio.
///
/// The device is opened and configured in `init`; `start()` runs its loop on a dedicated
/// `AudioThread` that takes periods from a ring, converts and resamples them, and writes
/// them to ALSA, playing silence for whatever the ring lacks. `write(_:)` fills that ring
/// without blocking. Thread contract: `start` and `stop` may be called from any thread (a
/// lock orders them); `write` from one thread at a time (the ring's single producer).
public final class ALSAPlaybackDevice: AudioOutput {
    public let configuration: ALSADeviceConfiguration
    /// What the device granted: its rate, period and buffer size.
    public let granted: ALSAGrantedParameters
    public var name: String { configuration.name }
    public let format: AudioFormat
    public var pacing: DevicePacing { .realTime }

    private let loop: ALSAPlaybackLoop
    private let thread = Mutex<AudioThread?>(nil)

    /// How long `stop()` waits beyond the queued audio and the device buffer for the tail
    /// to play out, before it stops the device regardless.
    private static let drainMarginNanoseconds = 500_000_000

    /// Opens and configures the PCM. Throws `.invalidArgument` for a configuration that
    /// makes no sense, `.notFound`, `.busy` or `.unsupportedConfiguration` from ALSA.
    public init(_ configuration: ALSADeviceConfiguration) throws(AudioDeviceError) {
        loop = try ALSAPlaybackLoop(configuration)
        self.configuration = configuration
        granted = loop.granted
        format = AudioFormat(sampleRate: engineSampleRate, channels: configuration.channels)
    }

    deinit {
        stop()
    }

    public func start() throws(AudioDeviceError) {
        try thread.withLock { (running: inout AudioThread?) throws(AudioDeviceError) in
            guard running == nil else { return }
            try loop.prepare()
            running = try startAudioThread(name: "playback \(name)", device: name) { [loop] thread in
                loop.run(on: thread)
            }
        }
    }

    /// Plays what is queued in the ring and the device buffer, then stops. The wait is
    /// bounded by the queued duration plus a margin, after which the device stops anyway.
    public func stop() {
        let running = thread.withLock { running in
            defer { running = nil }
            return running
        }
        guard let running else { return }
        let queuedFrames = loop.ring.availableToRead
        let queuedNanoseconds =
            queuedFrames * 1_000_000_000 / engineSampleRate + loop.granted.bufferFrames * 1_000_000_000
            / loop.granted.sampleRate
        let deadline = Int(MediaTime.monotonicNow()) + 2 * queuedNanoseconds + Self.drainMarginNanoseconds
        loop.drainRequested.store(true, ordering: .releasing)
        var pause = timespec(tv_sec: 0, tv_nsec: 2_000_000)
        while !loop.drained.load(ordering: .acquiring) && loop.counters.failureStatus.load(ordering: .acquiring) == 0
            && Int(MediaTime.monotonicNow()) < deadline
        {
            nanosleep(&pause, nil)
        }
        running.join()
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        loop.ring.write(samples)
    }

    public var availableToWrite: Int { loop.ring.availableToWrite }

    /// Frames written but not yet taken by the device thread.
    public var queuedFrames: Int { loop.ring.availableToRead }

    /// The POSIX id of the device thread while it runs, for per-thread measurements.
    public var deviceThread: pthread_t? {
        thread.withLock { $0?.systemThread }
    }

    public var statistics: AudioDeviceStatistics { loop.counters.snapshot }

    public var periodCadence: PeriodCadence? { loop.cadence }

    /// The error that stopped the device loop (the device went away, its server died), if any.
    public var failure: AudioDeviceError? { loop.counters.failure(device: name, stream: .playback) }
}
