import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The errors file devices report, phrased so that the message names the file, says what is
/// wrong with it and what to do.
extension AudioDeviceError {
    /// A WAV file that could not be loaded as input.
    static func loading(_ path: String, _ error: WAVError) -> AudioDeviceError {
        switch error {
        case .unreadable:
            if access(path, F_OK) != 0 {
                return AudioDeviceError(
                    .notFound, device: path, reason: "no such file",
                    suggestion: "check the path; relative paths start at the current directory", isFile: true)
            }
            return AudioDeviceError(
                .ioFailure, device: path, reason: error.description,
                suggestion: "check that the path names a regular file you may read", isFile: true)
        case .unwritable:
            return AudioDeviceError(.ioFailure, device: path, reason: error.description, isFile: true)
        default:
            return AudioDeviceError(
                .malformedFile, device: path, reason: error.description,
                suggestion: "use a mono or stereo WAV file with 16-bit PCM or 32-bit float samples", isFile: true)
        }
    }

    /// A file that could not be opened, created or written, from the `errno` the call left.
    static func fileSystem(_ path: String, doing action: String, errno code: Int32) -> AudioDeviceError {
        let message = String(cString: strerror(code))
        switch code {
        case ENOENT, ENOTDIR:
            return AudioDeviceError(
                .notFound, device: path, reason: "cannot \(action): \(message)",
                suggestion: "create the directory first, or choose a path in an existing directory", isFile: true)
        case EACCES, EPERM, EROFS:
            return AudioDeviceError(
                .ioFailure, device: path, reason: "cannot \(action): \(message)",
                suggestion: "choose a path you may write to", isFile: true)
        default:
            return AudioDeviceError(.ioFailure, device: path, reason: "cannot \(action): \(message)", isFile: true)
        }
    }

    static func invalidArgument(_ device: String, _ reason: String) -> AudioDeviceError {
        AudioDeviceError(.invalidArgument, device: device, reason: reason, isFile: true)
    }
}
