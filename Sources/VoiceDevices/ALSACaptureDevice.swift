import Synchronization
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A microphone (or any ALSA capture PCM) delivering 48 kHz float audio.
///
/// The device is opened and configured in `init`; `start()` runs its loop on a dedicated
/// `AudioThread` that reads periods from ALSA, converts and resamples them, and pushes them
/// into a ring. `read(into:)` drains that ring without blocking. Thread contract: `start`
/// and `stop` may be called from any thread (a lock orders them); `read` from one thread
/// at a time (the ring's single consumer).
public final class ALSACaptureDevice: AudioInput {
    public let configuration: ALSADeviceConfiguration
    /// What the device granted: its rate, period and buffer size.
    public let granted: ALSAGrantedParameters
    public var name: String { configuration.name }
    public let format: AudioFormat
    public var pacing: DevicePacing { .realTime }
    /// A microphone never runs out.
    public var isExhausted: Bool { false }

    private let loop: ALSACaptureLoop
    private let thread = Mutex<AudioThread?>(nil)

    /// Opens and configures the PCM. Throws `.invalidArgument` for a configuration that
    /// makes no sense, `.notFound`, `.busy` or `.unsupportedConfiguration` from ALSA.
    public init(_ configuration: ALSADeviceConfiguration) throws(AudioDeviceError) {
        loop = try ALSACaptureLoop(configuration)
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
            running = try startAudioThread(name: "capture \(name)", device: name) { [loop] thread in
                loop.run(on: thread)
            }
        }
    }

    public func stop() {
        let running = thread.withLock { running in
            defer { running = nil }
            return running
        }
        running?.join()
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        loop.ring.read(into: buffer)
    }

    /// Frames waiting in the ring.
    public var availableToRead: Int { loop.ring.availableToRead }

    /// The POSIX id of the device thread while it runs, for per-thread measurements.
    public var deviceThread: pthread_t? {
        thread.withLock { $0?.systemThread }
    }

    public var statistics: AudioDeviceStatistics { loop.counters.snapshot }

    public var periodCadence: PeriodCadence? { loop.cadence }

    /// The error that stopped the device loop (the device went away, its server died), if any.
    public var failure: AudioDeviceError? { loop.counters.failure(device: name, stream: .capture) }
}
