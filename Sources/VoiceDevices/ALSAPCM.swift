import CVoiceALSA
import VoiceCore

/// Which way audio flows through a PCM.
enum ALSAStream: Sendable, CustomStringConvertible {
    case capture
    case playback

    var alsaValue: snd_pcm_stream_t {
        switch self {
        case .capture: SND_PCM_STREAM_CAPTURE
        case .playback: SND_PCM_STREAM_PLAYBACK
        }
    }

    var description: String {
        switch self {
        case .capture: "capture"
        case .playback: "playback"
        }
    }
}

/// What the device granted when it was configured; it may differ from what was asked.
public struct ALSAGrantedParameters: Sendable, Hashable {
    /// The device's rate. Audio is resampled to and from 48 kHz when this is not 48 kHz.
    public var sampleRate: Int
    /// Frames per period at the device's rate.
    public var periodFrames: Int
    /// Frames of the device's buffer at the device's rate.
    public var bufferFrames: Int

    public init(sampleRate: Int, periodFrames: Int, bufferFrames: Int) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }
}

/// An open `snd_pcm_t`, closed exactly once when this value ends.
///
/// Thread contract: alsa-lib's PCM calls are not safe to make from two threads at once.
/// The device that owns this value configures it on the thread that creates the device;
/// afterwards only its device thread calls into it while that thread runs, and the owner
/// touches it again only after joining that thread.
struct ALSAPCM: ~Copyable {
    let handle: OpaquePointer
    let name: String
    let stream: ALSAStream

    /// Opens `name` in blocking mode: the device loops wait with `snd_pcm_wait` and a
    /// timeout, so reads and writes of one period never block for long.
    init(name: String, stream: ALSAStream) throws(AudioDeviceError) {
        // Failures are reported through the thrown error, with ALSA's reason in it.
        cvoice_alsa_silence_library_messages()
        var opened: OpaquePointer?
        let status = snd_pcm_open(&opened, name, stream.alsaValue, 0)
        guard status == 0, let opened else {
            throw AudioDeviceError.alsaOpen(status, device: name, stream: stream)
        }
        self.handle = opened
        self.name = name
        self.stream = stream
    }

    deinit {
        snd_pcm_close(handle)
    }

    /// Sets interleaved read/write access, the sample format, channels, rate (nearest the
    /// one asked), period and buffer size (nearest), then the software parameters the device
    /// loops rely on. Returns what the device granted.
    func configure(_ configuration: ALSADeviceConfiguration) throws(AudioDeviceError) -> ALSAGrantedParameters {
        var hardwareParameters: OpaquePointer?
        var status = snd_pcm_hw_params_malloc(&hardwareParameters)
        guard status == 0, let hardware = hardwareParameters else {
            throw AudioDeviceError.alsaCall(status, device: name, operation: "snd_pcm_hw_params_malloc")
        }
        defer { snd_pcm_hw_params_free(hardware) }

        status = snd_pcm_hw_params_any(handle, hardware)
        guard status >= 0 else {
            throw AudioDeviceError.alsaCall(status, device: name, operation: "snd_pcm_hw_params_any")
        }
        status = snd_pcm_hw_params_set_access(handle, hardware, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(status, device: name, parameter: "access", value: "RW interleaved")
        }
        let format = configuration.sampleFormat == .int16 ? SND_PCM_FORMAT_S16_LE : SND_PCM_FORMAT_FLOAT_LE
        status = snd_pcm_hw_params_set_format(handle, hardware, format)
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "sample format",
                value: configuration.sampleFormat == .int16 ? "S16_LE" : "FLOAT_LE")
        }
        status = snd_pcm_hw_params_set_channels(handle, hardware, UInt32(configuration.channels))
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "channel count", value: "\(configuration.channels)")
        }
        var rate = UInt32(configuration.sampleRate)
        status = snd_pcm_hw_params_set_rate_near(handle, hardware, &rate, nil)
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "sample rate", value: "\(configuration.sampleRate) Hz")
        }
        var period = snd_pcm_uframes_t(configuration.periodFrames)
        status = snd_pcm_hw_params_set_period_size_near(handle, hardware, &period, nil)
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "period size", value: "\(configuration.periodFrames) frames")
        }
        var buffer = snd_pcm_uframes_t(max(configuration.bufferFrames, 2 * Int(period)))
        status = snd_pcm_hw_params_set_buffer_size_near(handle, hardware, &buffer)
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "buffer size", value: "\(configuration.bufferFrames) frames")
        }
        status = snd_pcm_hw_params(handle, hardware)
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "configuration",
                value:
                    "\(configuration.sampleFormat) \(configuration.channels) ch \(rate) Hz, period \(period), buffer \(buffer)"
            )
        }
        // The granted sizes, read back after the whole configuration was installed.
        _ = snd_pcm_hw_params_get_period_size(hardware, &period, nil)
        _ = snd_pcm_hw_params_get_buffer_size(hardware, &buffer)
        _ = snd_pcm_hw_params_get_rate(hardware, &rate, nil)
        guard period > 0, buffer >= period, rate > 0 else {
            throw AudioDeviceError(
                .unsupportedConfiguration, device: name,
                reason: "granted an unusable configuration: \(rate) Hz, period \(period), buffer \(buffer) frames")
        }
        let granted = ALSAGrantedParameters(
            sampleRate: Int(rate), periodFrames: Int(period), bufferFrames: Int(buffer))
        try installSoftwareParameters(granted)
        return granted
    }

    /// Playback starts once the device buffer is full, so the first period is not followed
    /// at once by an underrun; capture starts when the loop calls `snd_pcm_start`. Both
    /// wake the loop once a whole period can move.
    private func installSoftwareParameters(_ granted: ALSAGrantedParameters) throws(AudioDeviceError) {
        var softwareParameters: OpaquePointer?
        var status = snd_pcm_sw_params_malloc(&softwareParameters)
        guard status == 0, let software = softwareParameters else {
            throw AudioDeviceError.alsaCall(status, device: name, operation: "snd_pcm_sw_params_malloc")
        }
        defer { snd_pcm_sw_params_free(software) }
        status = snd_pcm_sw_params_current(handle, software)
        guard status == 0 else {
            throw AudioDeviceError.alsaCall(status, device: name, operation: "snd_pcm_sw_params_current")
        }
        let threshold = stream == .playback ? granted.bufferFrames : 1
        status = snd_pcm_sw_params_set_start_threshold(handle, software, snd_pcm_uframes_t(threshold))
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "start threshold", value: "\(threshold) frames")
        }
        status = snd_pcm_sw_params_set_avail_min(handle, software, snd_pcm_uframes_t(granted.periodFrames))
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "avail min", value: "\(granted.periodFrames) frames")
        }
        status = snd_pcm_sw_params(handle, software)
        guard status == 0 else {
            throw AudioDeviceError.alsaParameter(
                status, device: name, parameter: "software parameters",
                value: "start threshold \(threshold), avail min \(granted.periodFrames)")
        }
    }
}
