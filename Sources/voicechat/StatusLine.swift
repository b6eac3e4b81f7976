import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where status lines go while the interactive console owns the terminal: above its live block,
/// which would otherwise be drawn over them.
enum StatusOutput {
    static let console = Mutex<InteractiveConsole?>(nil)
}

/// Prints one line of a running session's status and flushes it at once: a script or a test that
/// reads the output through a pipe or a file sees each line as it happens, not when the buffer fills.
func printStatus(_ line: String) {
    if let console = StatusOutput.console.withLock({ $0 }) {
        console.note(line)
        return
    }
    print(line)
    fflush(nil)
}
