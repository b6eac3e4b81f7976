import CVoiceOpus

/// The codec libraries this build runs with, for `--version` and bug reports.
public enum CodecLibraries {
    /// libopus's own version string, e.g. "libopus 1.3.1".
    public static var opusVersion: String { String(cString: opus_get_version_string()) }
}
