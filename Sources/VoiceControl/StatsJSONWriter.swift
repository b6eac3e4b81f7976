import Foundation
import Synchronization
import SystemPackage
import VoiceCore
import VoiceWire

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
    /// The writing thread runs while this is false; it signals `finished` on its way out.
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    private init(path: String, descriptor: Int32, control: any VoiceSessionControl, intervalMilliseconds: Int) {
        self.path = path
        self.control = control
        self.intervalMilliseconds = intervalMilliseconds
        file = Mutex((descriptor, nil))
    }

    /// Refuses a path the stats cannot be written to ("-" is standard output), without creating
    /// or changing anything: for checking options before a session starts.
    public static func checkPath(_ path: String) throws(ControlError) {
        guard path != "-" else { return }
        guard !path.isEmpty else {
            throw .statsFile("the stats path is empty; give a file path, or - for standard output")
        }
        if let problem = WritableLocation.problem(writing: path) {
            throw .statsFile("cannot write stats to \(path): \(problem)")
        }
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
        // A thread of its own, not a task: a busy or blocked cooperative pool must not stop the
        // lines, and the deadlines are absolute, so the interval does not drift.
        let thread = Thread { writer.writeUntilStopped() }
        thread.name = "voicechat stats"
        thread.start()
        return writer
    }

    private func writeUntilStopped() {
        defer { finished.signal() }
        let interval = UInt64(intervalMilliseconds) * 1_000_000
        var deadline = UInt64(MediaTime.monotonicNow()) + interval
        while !stopping.load(ordering: .acquiring) {
            let now = UInt64(MediaTime.monotonicNow())
            if now >= deadline {
                try? writeSnapshot()
                deadline += interval
                // After a long stall, skip the missed lines rather than write a burst of them.
                if deadline <= now { deadline = now + interval }
                continue
            }
            // Short naps keep `close()` prompt.
            usleep(useconds_t(min(deadline - now, 20_000_000) / 1000))
        }
    }

    /// The first write that failed, if any; the writer stops writing after it.
    public var failure: ControlError? { file.withLock { $0.failure } }

    /// Writes one line with the session's snapshot now.
    public func writeSnapshot() throws(ControlError) {
        let line = Array(JSONLines.line(control.snapshot()).utf8)
        try file.withLock { file throws(ControlError) in
            if let failure = file.failure { throw failure }
            guard file.descriptor >= 0 else { throw .statsFile("the stats file \(path) is closed") }
            do {
                try FileDescriptor(rawValue: file.descriptor).writeAll(line)
            } catch {
                let failure = ControlError.statsFile("writing stats to \(path) failed: \(error)")
                file.failure = failure
                throw failure
            }
        }
    }

    /// Stops the writing thread, writes a last line and closes the file. Safe to call more than once.
    public func close() async {
        if !stopping.exchange(true, ordering: .acquiringAndReleasing) { finished.wait() }
        try? writeSnapshot()
        file.withLock { file in
            if file.descriptor >= 0, file.descriptor != STDOUT_FILENO { Glibc.close(file.descriptor) }
            file.descriptor = -1
        }
    }
}
