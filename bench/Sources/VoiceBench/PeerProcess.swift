import Foundation
import Synchronization

/// A child process of the benchmark that talks in lines: commands go to its standard input, and
/// every line it prints is handed to `onLine` (on a reader thread) or kept for `waitForLine`.
///
/// Thread contract: `send` may be called from any thread (a lock orders the writes); `onLine`
/// runs on the reader thread, one line at a time.
final class PeerProcess: Sendable {
    let label: String
    private let process: Process
    private let input: FileHandle
    private let lines = Mutex<[String]>([])
    private let arrived = NSCondition()
    private let writeLock = Mutex<Void>(())
    private let onLine: @Sendable (String) -> Bool

    /// Starts this executable with `arguments` and `extra` added to this process's environment. `onLine` sees each printed line first; lines it
    /// does not take (returns false for) are kept for `waitForLine`.
    init(
        label: String, arguments: [String], environment extra: [String: String] = [:],
        onLine: @escaping @Sendable (String) -> Bool = { _ in false }
    ) throws {
        self.label = label
        self.onLine = onLine
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // The allocation interposer would slow the process under test.
        environment["LD_PRELOAD"] = nil
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let reader = stdout.fileHandleForReading
        let thread = Thread { [self] in readLines(from: reader) }
        thread.name = "\(label) output"
        thread.start()
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    private func readLines(from handle: FileHandle) {
        var pending: [UInt8] = []
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if onLine(line) { continue }
                arrived.lock()
                lines.withLock { $0.append(line) }
                arrived.broadcast()
                arrived.unlock()
            }
        }
        arrived.lock()
        lines.withLock { $0.append("exited") }
        arrived.broadcast()
        arrived.unlock()
    }

    /// Writes one line to the child's standard input; a child that has gone is ignored.
    func send(_ line: String) {
        writeLock.withLock { _ in
            try? input.write(contentsOf: Data((line + "\n").utf8))
        }
    }

    /// Waits for (and removes) the first kept line starting with one of `prefixes`; nil after
    /// `timeout` seconds, or once the child has exited without printing one.
    func waitForLine(prefixes: [String], timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        arrived.lock()
        defer { arrived.unlock() }
        while true {
            let found = lines.withLock { lines -> String? in
                guard let index = lines.firstIndex(where: { line in prefixes.contains { line.hasPrefix($0) } })
                else { return nil }
                return lines.remove(at: index)
            }
            if let found { return found }
            if lines.withLock({ $0.contains("exited") }) { return nil }
            if !arrived.wait(until: deadline) { return nil }
        }
    }

    /// Asks the child to stop, waits up to 5 s, then terminates it by its PID.
    func stop() {
        send("stop")
        writeLock.withLock { _ in try? input.close() }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
