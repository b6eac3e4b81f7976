import CVoiceALSA
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A PCM that ALSA's configuration names, as `aplay -L` and `arecord -L` list them.
public struct ALSADeviceInfo: Sendable, Hashable {
    /// Which streams a PCM offers.
    public enum Direction: String, Sendable, Hashable {
        case capture
        case playback
        case both

        public var allowsCapture: Bool { self != .playback }
        public var allowsPlayback: Bool { self != .capture }
    }

    /// The name to open it by, e.g. `default` or `hw:CARD=PCH,DEV=0`.
    public var name: String
    /// ALSA's description; often several lines (card, then device). Empty when the
    /// configuration gives none.
    public var description: String
    public var direction: Direction

    public init(name: String, description: String, direction: Direction) {
        self.name = name
        self.description = description
        self.direction = direction
    }
}

/// The PCMs known to ALSA on this machine.
public enum ALSADeviceList {
    /// Every PCM name hint of every card and of the configuration, in ALSA's order.
    public static func pcmDevices() throws(AudioDeviceError) -> [ALSADeviceInfo] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        let status = snd_device_name_hint(-1, "pcm", &hints)
        guard status == 0, let hints else {
            throw AudioDeviceError(
                .ioFailure, device: "pcm", reason: "cannot list devices: \(AudioDeviceError.alsaReason(status))",
                suggestion: "check the ALSA configuration (ALSA_CONFIG_PATH, ~/.asoundrc)")
        }
        defer { snd_device_name_free_hint(hints) }
        var devices: [ALSADeviceInfo] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let name = hintValue(hint, "NAME") else { continue }
            let direction: ALSADeviceInfo.Direction =
                switch hintValue(hint, "IOID") {
                case "Input": .capture
                case "Output": .playback
                default: .both
                }
            devices.append(
                ALSADeviceInfo(name: name, description: hintValue(hint, "DESC") ?? "", direction: direction))
        }
        return devices
    }

    /// One field of a hint; alsa-lib hands out a copy that the caller frees.
    private static func hintValue(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
