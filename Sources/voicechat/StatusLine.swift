import Logging
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Where status lines go: above the interactive console's live block while it owns the terminal
/// (it would otherwise draw over them), to standard error while standard output carries data
/// (`--stats-json -`), else to standard output.
enum StatusOutput {
    static let console = Mutex<InteractiveConsole?>(nil)
    private static let standardOutputCarriesData = Atomic<Bool>(false)
    /// Lines below this level are not printed (`--log-level`).
    static let level = Mutex<Logger.Level>(.info)

    /// Applies `observation`'s `--log-level`, and sends status lines to standard error from now on
    /// when it writes its stats to standard output, so that a reader of those JSON lines gets
    /// nothing else. Commands call it before their first status line.
    static func configure(for observation: ObservationOptions) {
        standardOutputCarriesData.store(observation.statsJSON == "-", ordering: .relaxed)
        level.withLock { $0 = observation.logLevel.level }
    }

    static var toStandardError: Bool { standardOutputCarriesData.load(ordering: .relaxed) }
}

/// Prints one line of a running session's status and flushes it at once: a script or a test that
/// reads the output through a pipe or a file sees each line as it happens, not when the buffer fills.
/// `level`: notice for the session's start, end and summary, info for what happens in it, warning
/// for what went wrong without ending it, debug for each second's statistics.
func printStatus(_ line: String, level: Logger.Level = .info) {
    guard level >= StatusOutput.level.withLock({ $0 }) else { return }
    if let console = StatusOutput.console.withLock({ $0 }) {
        console.note(line)
        return
    }
    if StatusOutput.toStandardError {
        _ = try? FileDescriptor.standardError.writeAll((line + "\n").utf8)
        return
    }
    print(line)
    fflush(nil)
}
