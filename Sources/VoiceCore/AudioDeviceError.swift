/// Why an audio device or audio file could not be used, with the name it was opened by,
/// the underlying reason (ALSA's message, the file problem) and what the user can do.
public struct AudioDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// No device or file of that name exists.
        case notFound
        /// The device exists but another program holds it.
        case busy
        /// The device refused the requested rate, channels, sample format, period or buffer size.
        case unsupportedConfiguration
        /// Reading or writing failed and could not be recovered.
        case ioFailure
        /// The file exists but is not audio this project can read.
        case malformedFile
        /// The caller asked for something contradictory (e.g. zero channels).
        case invalidArgument
    }

    public var code: Code
    /// The device or file name as the user gave it.
    public var device: String
    /// What went wrong, in the library's or the file's own terms.
    public var reason: String
    /// What to do about it.
    public var suggestion: String?
    /// Whether `device` names a file (a WAV input or output) rather than a sound device.
    public var isFile: Bool

    public init(_ code: Code, device: String, reason: String, suggestion: String? = nil, isFile: Bool = false) {
        self.code = code
        self.device = device
        self.reason = reason
        self.suggestion = suggestion
        self.isFile = isFile
    }

    public var description: String {
        var text = "\(isFile ? "file" : "audio device") '\(device)': \(reason)"
        if let suggestion { text += " (\(suggestion))" }
        return text
    }
}
