import CVoiceSodium

/// The crypto library this build runs with, for `--version` and bug reports.
public enum CryptoLibraries {
    /// libsodium's version, e.g. "1.0.18".
    public static var sodiumVersion: String { String(cString: sodium_version_string()) }
}
