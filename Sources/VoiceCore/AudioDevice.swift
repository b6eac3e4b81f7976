/// Counters a device keeps while it runs. Read from any thread; each field is a snapshot.
public struct AudioDeviceStatistics: Hashable, Sendable {
    /// Frames the device thread moved to or from the device, at the device's rate.
    public var deviceFrames: Int = 0
    /// Overruns (capture) or underruns (playback) that the device reported and that were recovered.
    public var xruns: Int = 0
    /// Times the device was suspended (e.g. by power management) and resumed.
    public var suspends: Int = 0
    /// Capture: frames dropped because the engine did not read the ring in time.
    /// Playback: frames of silence played because the engine did not fill the ring in time.
    public var ringStarvedFrames: Int = 0
    /// Periods the device moved faster than its rate allows, which the device thread then waited
    /// out on its own clock: a device with no clock behind it (ALSA's `null`).
    public var pacedPeriods: Int = 0

    public init(
        deviceFrames: Int = 0, xruns: Int = 0, suspends: Int = 0, ringStarvedFrames: Int = 0, pacedPeriods: Int = 0
    ) {
        self.deviceFrames = deviceFrames
        self.xruns = xruns
        self.suspends = suspends
        self.ringStarvedFrames = ringStarvedFrames
        self.pacedPeriods = pacedPeriods
    }
}

/// How a device advances through time.
public enum DevicePacing: Sendable, Hashable {
    /// The device produces or consumes audio at its own real-time rate on a thread of its
    /// own; the engine exchanges audio with it through an `AudioRing` and never waits on it.
    case realTime
    /// The device has no thread and no clock: every `read` returns the frames asked for and
    /// every `write` takes all it is given, at once. The caller's (virtual) clock decides when
    /// to call. This is how simulations and tests run minutes of audio in milliseconds.
    case onDemand
}

/// A source of captured audio: a microphone, a file, a test signal.
///
/// The engine side of a device is always float samples at 48 kHz, interleaved with
/// `format.channels` channels; conversion from the device's own rate and sample format
/// happens behind this interface.
public protocol AudioInput: AnyObject, Sendable {
    /// The name the device was opened with, for messages.
    var name: String { get }
    /// What `read` delivers: 48 kHz with the configured channel count.
    var format: AudioFormat { get }
    var pacing: DevicePacing { get }
    /// Starts capturing. Starting a running device does nothing.
    func start() throws(AudioDeviceError)
    /// Stops capturing and joins the device thread, if any. Stopping a stopped device does nothing.
    func stop()
    /// Copies up to `buffer.count / format.channels` frames of captured audio into `buffer`
    /// and returns how many frames it copied. Never blocks. A real-time device returns what
    /// has arrived; an on-demand device returns all frames asked for, or fewer only at the
    /// end of its source.
    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int
    /// True once a finite source has delivered its last frame.
    var isExhausted: Bool { get }
    var statistics: AudioDeviceStatistics { get }
    /// When a real-time device delivers its periods, for an engine that sends each as it comes;
    /// nil for a device without a rhythm of its own (on demand) or one that does not tell it.
    var periodCadence: PeriodCadence? { get }
}

/// A sink for audio to be heard: a speaker, a file.
public protocol AudioOutput: AnyObject, Sendable {
    var name: String { get }
    /// What `write` takes: 48 kHz with the configured channel count.
    var format: AudioFormat { get }
    var pacing: DevicePacing { get }
    func start() throws(AudioDeviceError)
    /// Plays what was written and is still queued, then stops and joins the device thread.
    func stop()
    /// Queues whole frames of `samples` for playback and returns how many frames it took.
    /// Never blocks: a real-time device takes what fits in its ring.
    func write(_ samples: UnsafeBufferPointer<Float>) -> Int
    /// Frames that can be written now without being refused.
    var availableToWrite: Int { get }
    var statistics: AudioDeviceStatistics { get }
    /// When a real-time device takes its periods, for an engine that mixes each frame just
    /// before it is taken; nil for a device without a rhythm of its own or one that does not tell it.
    var periodCadence: PeriodCadence? { get }
}

extension AudioInput {
    public var periodCadence: PeriodCadence? { nil }
}

extension AudioOutput {
    public var periodCadence: PeriodCadence? { nil }
}
