import CVoiceALSA
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// What one PCM offers in one direction, read by opening it briefly: the range of rates and
/// channel counts its hardware parameters allow.
public struct ALSAPCMCapabilities: Sendable, Hashable {
    public var rates: ClosedRange<UInt32>
    public var channels: ClosedRange<UInt32>
}

/// Opens PCMs without playing or capturing anything, to tell which names work here.
public enum ALSAPCMProbe {
    /// The PCM's capabilities for capture (else playback), or why it cannot be opened that way
    /// (alsa-lib's reason). Opens non-blocking, so a device another program holds answers at once
    /// instead of waiting.
    public static func capabilities(of name: String, capture: Bool) -> Result<ALSAPCMCapabilities, ALSAProbeFailure> {
        cvoice_alsa_silence_library_messages()
        let stream: ALSAStream = capture ? .capture : .playback
        var opened: OpaquePointer?
        let status = snd_pcm_open(&opened, name, stream.alsaValue, SND_PCM_NONBLOCK)
        guard status == 0, let pcm = opened else { return .failure(ALSAProbeFailure(status: status)) }
        defer { snd_pcm_close(pcm) }
        var parameters: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&parameters) == 0, let parameters else {
            return .failure(ALSAProbeFailure(status: -ENOMEM))
        }
        defer { snd_pcm_hw_params_free(parameters) }
        let any = snd_pcm_hw_params_any(pcm, parameters)
        guard any >= 0 else { return .failure(ALSAProbeFailure(status: any)) }
        var rateMinimum: UInt32 = 0
        var rateMaximum: UInt32 = 0
        var channelsMinimum: UInt32 = 0
        var channelsMaximum: UInt32 = 0
        var direction: Int32 = 0
        _ = snd_pcm_hw_params_get_rate_min(parameters, &rateMinimum, &direction)
        _ = snd_pcm_hw_params_get_rate_max(parameters, &rateMaximum, &direction)
        _ = snd_pcm_hw_params_get_channels_min(parameters, &channelsMinimum)
        _ = snd_pcm_hw_params_get_channels_max(parameters, &channelsMaximum)
        return .success(
            ALSAPCMCapabilities(
                rates: rateMinimum...max(rateMinimum, rateMaximum),
                channels: channelsMinimum...max(channelsMinimum, channelsMaximum)))
    }
}

/// Why a PCM did not open: alsa-lib's status and its words for it.
public struct ALSAProbeFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int32
    public var description: String { AudioDeviceError.alsaReason(status) }
}
