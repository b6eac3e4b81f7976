import VoiceCore

/// How to open an ALSA PCM for capture or playback.
///
/// The device side is described in the device's own terms (its rate, sample format, period
/// and buffer); the engine side is always float at 48 kHz with `channels` channels, and the
/// device converts between the two on its own thread.
public struct ALSADeviceConfiguration: Sendable, Hashable {
    /// The ALSA PCM name, as `aplay -L` lists it (`default`, `hw:0,0`, `plughw:1`, a name
    /// from `~/.asoundrc`).
    public var name: String
    /// The rate asked of the device. The device may grant a different one; audio is
    /// resampled to and from 48 kHz whenever the granted rate is not 48 kHz.
    public var sampleRate: Int
    /// Interleaved channels on both sides: 1 or 2.
    public var channels: Int
    /// How samples are stored in the device's buffer.
    public var sampleFormat: SampleFormat
    /// Frames per device period: how much audio moves per wake-up. 480 is 10 ms at 48 kHz.
    public var periodFrames: Int
    /// Frames of the device's buffer, a few periods: more survives scheduling hiccups, less
    /// lowers latency.
    public var bufferFrames: Int
    /// Frames (at 48 kHz) of the ring between the device thread and the engine. Rounded up
    /// to a power of two.
    public var ringFrames: Int

    public init(
        name: String = "default",
        sampleRate: Int = engineSampleRate,
        channels: Int = 1,
        sampleFormat: SampleFormat = .int16,
        periodFrames: Int = 480,
        bufferFrames: Int = 4 * 480,
        ringFrames: Int = 9_600
    ) {
        self.name = name
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = sampleFormat
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.ringFrames = ringFrames
    }

    /// Limits that keep every buffer the device preallocates within reason.
    public static let sampleRates = 8_000...384_000
    public static let maximumPeriodFrames = 65_536
    static let maximumRingFrames = 1 << 24

    /// Throws `.invalidArgument` naming the first field that makes no sense.
    public func validate() throws(AudioDeviceError) {
        func invalid(_ reason: String, _ suggestion: String) -> AudioDeviceError {
            AudioDeviceError(.invalidArgument, device: name, reason: reason, suggestion: suggestion)
        }
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw invalid("the device name is empty or contains a NUL byte", "use a name that `aplay -L` lists")
        }
        guard channels == 1 || channels == 2 else {
            throw invalid("\(channels) channels requested", "use 1 (mono) or 2 (stereo)")
        }
        guard Self.sampleRates.contains(sampleRate) else {
            throw invalid(
                "sample rate \(sampleRate) Hz is out of range",
                "use a rate from \(Self.sampleRates.lowerBound) to \(Self.sampleRates.upperBound) Hz, usually 48000")
        }
        guard periodFrames > 0, periodFrames <= Self.maximumPeriodFrames else {
            throw invalid(
                "period of \(periodFrames) frames requested",
                "use 1…\(Self.maximumPeriodFrames) frames, e.g. 480 (10 ms at 48 kHz)")
        }
        guard bufferFrames >= 2 * periodFrames, bufferFrames <= 64 * periodFrames else {
            throw invalid(
                "buffer of \(bufferFrames) frames for a period of \(periodFrames) frames",
                "use 2 to 64 periods, e.g. \(4 * periodFrames)")
        }
        let enginePeriodFrames = engineFrames(ofDeviceFrames: periodFrames, sampleRate: sampleRate)
        guard ringFrames >= enginePeriodFrames, ringFrames <= Self.maximumRingFrames else {
            throw invalid(
                "ring of \(ringFrames) frames requested for a period of \(enginePeriodFrames) frames at 48 kHz",
                "use \(enginePeriodFrames)…\(Self.maximumRingFrames) frames, a few periods or more")
        }
    }
}
