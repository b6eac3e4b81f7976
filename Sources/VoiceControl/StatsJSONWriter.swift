import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one `SessionSnapshot` JSON line per interval (a second by default) to a file, for
/// scripts and plots. Each line goes to the file with one write(2), so a reader following the file
/// sees whole lines as they are written. The path "-" writes to standard output.
public final class StatsJSONWriter: Sendable {
    public let path: String
    private let control: any VoiceSessionControl
    private let intervalMilliseconds: Int
    /// The file descriptor (-1 once closed) and the first write error.
    private let file: Mutex<(descriptor: Int32, failure: ControlError?)>
    private let timer = Mutex<Task<Void, Never>?>(nil)

    private init(path: String, descriptor: Int32, control: any VoiceSessionControl, intervalMilliseconds: Int) {
        self.path = path
        self.control = control
        self.intervalMilliseconds = intervalMilliseconds
        file = Mutex((descriptor, nil))
    }

    /// Creates (or truncates) the file and writes a line every `intervalMilliseconds`, the first
    /// one an interval from now, until `close()`.
    public static func start(
        path: String, control: any VoiceSessionControl, intervalMilliseconds: Int = 1000
    ) throws(ControlError) -> StatsJSONWriter {
        guard intervalMilliseconds > 0 else {
            throw .statsFile("the stats interval must be positive, not \(intervalMilliseconds) ms")
        }
        let descriptor: Int32
        if path == "-" {
            descriptor = STDOUT_FILENO
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw .statsFile(
                    "cannot write stats to \(path): \(String(cString: strerror(errno))); "
                        + "check that its directory exists and is writable")
            }
        }
        let writer = StatsJSONWriter(
            path: path, descriptor: descriptor, control: control, intervalMilliseconds: intervalMilliseconds)
        writer.timer.withLock { timer in
            timer = Task.detached { [weak writer] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(intervalMilliseconds))
                    guard !Task.isCancelled, let writer else { return }
                    try? writer.writeSnapshot()
                }
            }
        }
        return writer
    }

    /// The first write that failed, if any; the writer stops writing after it.
    public var failure: ControlError? { file.withLock { $0.failure } }

    /// Writes one line with the session's snapshot now.
    public func writeSnapshot() throws(ControlError) {
        let line = Array(ControlJSON.line(control.snapshot()).utf8)
        try file.withLock { file throws(ControlError) in
            if let failure = file.failure { throw failure }
            guard file.descriptor >= 0 else { throw .statsFile("the stats file \(path) is closed") }
            var written = 0
            while written < line.count {
                let result = line[written...].withUnsafeBytes { write(file.descriptor, $0.baseAddress, $0.count) }
                if result < 0 {
                    if errno == EINTR { continue }
                    let failure = ControlError.statsFile(
                        "writing stats to \(path) failed: \(String(cString: strerror(errno)))")
                    file.failure = failure
                    throw failure
                }
                written += result
            }
        }
    }

    /// Stops the timer, writes a last line and closes the file.
    public func close() async {
        let task = timer.withLock { timer in
            defer { timer = nil }
            return timer
        }
        task?.cancel()
        await task?.value
        try? writeSnapshot()
        file.withLock { file in
            if file.descriptor >= 0, file.descriptor != STDOUT_FILENO { Glibc.close(file.descriptor) }
            file.descriptor = -1
        }
    }
}
