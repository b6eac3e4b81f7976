import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Puts the terminal on standard input into a raw-ish mode for single-key commands (no line
/// buffering, no echo, Ctrl-C still raises SIGINT) and puts it back exactly as it was.
///
/// The saved settings are process-wide so that an exit path that skips `restore()` (an `exit`
/// elsewhere in the program) still restores the terminal through an `atexit` handler.
enum TerminalMode {
    private static let saved = Mutex<termios?>(nil)
    private static let registeredExitHandler = Atomic<Bool>(false)

    /// Enters raw mode; false when standard input is not a terminal or cannot be configured.
    static func enterRaw() -> Bool {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return false }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // Reads return at once with what is there; the console polls before reading.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        saved.withLock { $0 = original }
        if !registeredExitHandler.exchange(true, ordering: .relaxed) {
            atexit { TerminalMode.restore() }
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else {
            saved.withLock { $0 = nil }
            return false
        }
        // Hide the cursor while the block redraws.
        writeAll("\u{1B}[?25l")
        return true
    }

    /// Restores the saved settings and shows the cursor; does nothing when not in raw mode.
    static func restore() {
        guard
            var original = saved.withLock({ saved in
                defer { saved = nil }; return saved
            })
        else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
        writeAll("\u{1B}[?25h")
    }

    /// The terminal's width in columns, or 100 when it cannot be read.
    static var columns: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 100 }
        return Int(size.ws_col)
    }

    /// Writes `text` to standard output with write(2), bypassing stdio buffers.
    static func writeAll(_ text: String) {
        _ = try? FileDescriptor.standardOutput.writeAll(text.utf8)
    }
}
