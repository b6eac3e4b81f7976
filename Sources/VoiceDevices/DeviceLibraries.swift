import CVoiceALSA

/// The audio device library this build runs with, for `--version` and bug reports.
public enum DeviceLibraries {
    /// alsa-lib's version, e.g. "1.2.8".
    public static var alsaVersion: String { String(cString: snd_asoundlib_version()) }
}
