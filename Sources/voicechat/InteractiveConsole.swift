import Foundation
import Synchronization
import VoiceControl

#if canImport(Glibc)
    import Glibc
#endif

/// The live view of a session on a terminal: input and output meters and one line per participant,
/// redrawn in place ten times a second, and single keys that act on the session (see
/// `ConsoleKeyHandler`). The terminal is restored when the console stops, on Ctrl-C and SIGTERM
/// (the loop sees `InterruptSignal`), and at process exit.
///
/// Thread contract: `start` and `stop` are called from one thread; the drawing loop runs on its own
/// thread and is the only one that touches the terminal while it runs. Notes cross over a mutex.
final class InteractiveConsole: Sendable {
    private let control: any VoiceSessionControl
    private let keys: ConsoleKeyHandler
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let pendingNotes = Mutex<[String]>([])

    /// Whether the console can run: both standard input and output are a terminal.
    static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    init(control: any VoiceSessionControl) {
        self.control = control
        keys = ConsoleKeyHandler(control: control)
    }

    /// Enters raw mode and starts drawing; false when the terminal cannot be set up.
    func start() -> Bool {
        guard TerminalMode.enterRaw() else { return false }
        running.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "voicechat console"
        thread.start()
        return true
    }

    /// Stops drawing and restores the terminal.
    func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        finished.wait()
    }

    /// Prints `message` above the live block.
    func note(_ message: String) {
        pendingNotes.withLock { $0.append(message) }
    }

    private func loop() {
        var drawnLines = 0
        var drawnWidth = TerminalMode.columns
        var status = ""
        while running.load(ordering: .relaxed) && !InterruptSignal.wasReceived {
            for key in readKeys() {
                switch keys.handle(key) {
                case .quit:
                    status = "quitting"
                    InterruptSignal.request()
                case .interrupt:
                    status = "interrupted"
                    InterruptSignal.interrupt()
                case .status(let text) where !text.isEmpty:
                    status = text
                case .status:
                    break
                }
            }
            let width = TerminalMode.columns
            // A narrower terminal wraps the block drawn last onto more rows than it had: moving up
            // over its lines would leave the top of it behind, so the screen is cleared instead.
            if width != drawnWidth {
                TerminalMode.writeAll("\u{1B}[H\u{1B}[2J")
                drawnLines = 0
                drawnWidth = width
            }
            let lines = ConsoleRenderer.lines(for: control.snapshot(), status: status, width: width - 1)
            drawnLines = draw(lines, over: drawnLines)
        }
        // Leave the last picture on screen, below any notes, and the cursor under it.
        _ = draw(
            ConsoleRenderer.lines(for: control.snapshot(), status: status, width: TerminalMode.columns - 1),
            over: drawnLines)
        TerminalMode.restore()
    }

    /// Waits up to 100 ms for keys and returns those that came. Escape sequences (arrows, function
    /// keys) are skipped whole.
    private func readKeys() -> [UInt8] {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 100) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        guard count > 0 else {
            // End of input (a closed terminal): wait instead of spinning.
            usleep(100_000)
            return []
        }
        let bytes = buffer[..<count]
        if let escape = bytes.firstIndex(of: 0x1B) { return Array(bytes[..<escape]) }
        return Array(bytes)
    }

    /// Redraws the block in place: moves up over the last one, prints pending notes, then the lines.
    private func draw(_ lines: [String], over previous: Int) -> Int {
        var text = previous > 0 ? "\r\u{1B}[\(previous)A\u{1B}[J" : ""
        for note in pendingNotes.withLock({ notes in
            defer { notes = [] }; return notes
        }) {
            text += note + "\n"
        }
        for line in lines { text += line + "\u{1B}[K\n" }
        TerminalMode.writeAll(text)
        return lines.count
    }
}
