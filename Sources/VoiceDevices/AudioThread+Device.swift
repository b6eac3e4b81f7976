import VoiceCore

/// Starts a device loop's thread, reporting failure in the devices' error type.
func startAudioThread(
    name: String,
    device: String,
    body: @escaping @Sendable (AudioThread) -> Void
) throws(AudioDeviceError) -> AudioThread {
    do {
        return try AudioThread(name: name, body: body)
    } catch {
        throw AudioDeviceError(
            .ioFailure, device: device, reason: error.description,
            suggestion: "the process is out of threads or memory")
    }
}
