import CVoiceALSA
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Translation of alsa-lib's negative errno results into `AudioDeviceError`s that say which
/// device failed, ALSA's own reason, and what the user can do.
extension AudioDeviceError {
    /// ALSA's message for a negative status, e.g. "No such file or directory".
    static func alsaReason(_ status: Int32) -> String {
        String(cString: snd_strerror(status))
    }

    /// A failure of `snd_pcm_open`.
    ///
    /// alsa-lib 1.2.8 returns -ENOENT for a PCM name that no configuration defines (and for a
    /// `hw:N` card that does not exist); -ENODEV and -ENXIO come from kernel devices that
    /// went away.
    static func alsaOpen(_ status: Int32, device: String, stream: ALSAStream) -> AudioDeviceError {
        let reason = "cannot open for \(stream): \(alsaReason(status))"
        switch -status {
        case ENOENT, ENODEV, ENXIO:
            return AudioDeviceError(
                .notFound, device: device, reason: reason,
                suggestion: "run `voicechat devices` or `aplay -L` to list the PCM names this machine knows")
        case EBUSY:
            return AudioDeviceError(
                .busy, device: device, reason: reason,
                suggestion: "another program holds the device; close it or open a shared PCM such as `default`")
        case EACCES, EPERM:
            return AudioDeviceError(
                .ioFailure, device: device, reason: reason,
                suggestion: "check the permissions of /dev/snd (membership of the `audio` group)")
        default:
            return AudioDeviceError(.ioFailure, device: device, reason: reason)
        }
    }

    /// The device refused a hardware or software parameter.
    static func alsaParameter(_ status: Int32, device: String, parameter: String, value: String) -> AudioDeviceError {
        AudioDeviceError(
            .unsupportedConfiguration, device: device,
            reason: "refuses \(parameter) \(value): \(alsaReason(status))",
            suggestion: "ask for another \(parameter), or open a converting PCM such as `plughw:…` or `plug:…`")
    }

    /// Any other call that failed.
    static func alsaCall(_ status: Int32, device: String, operation: String) -> AudioDeviceError {
        AudioDeviceError(.ioFailure, device: device, reason: "\(operation) failed: \(alsaReason(status))")
    }
}

extension DeviceCounters {
    /// The failure that stopped the device loop, if one did.
    func failure(device: String, stream: ALSAStream) -> AudioDeviceError? {
        let status = failureStatus.load(ordering: .acquiring)
        guard status != 0 else { return nil }
        return AudioDeviceError(
            .ioFailure, device: device,
            reason: "\(stream) stopped: \(AudioDeviceError.alsaReason(status))",
            suggestion: "the device may have been unplugged or its server stopped; open it again")
    }
}
