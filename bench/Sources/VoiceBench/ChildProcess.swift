import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A process of this benchmark executable that the benchmark started (a peer under test, the
/// relay server), without the allocation interposer, which would slow it. It talks in lines:
/// commands go to its standard input, and every line it prints is handed to `onLine` (on a
/// reader thread) or kept for `waitForLine`. Its CPU time and resident memory are read from /proc.
///
/// Thread contract: `send` may be called from any thread (a lock orders the writes); `onLine`
/// runs on the reader thread, one line at a time.
final class ChildProcess: Sendable {
    let label: String
    private let process: Process
    private let input: FileHandle
    /// The lines kept so far, and whether the child's output has ended.
    private let output = Mutex<(lines: [String], ended: Bool)>(([], false))
    private let arrived = NSCondition()
    private let writeLock = Mutex<Void>(())
    private let onLine: @Sendable (String) -> Bool

    /// Starts `executable` (by default this one) with `arguments` and `extra` added to this
    /// process's environment. `onLine` sees each printed line first; lines it does not take
    /// (returns false for) are kept for `waitForLine`. With `keepingErrors`, what it writes to
    /// standard error is read as its lines too (a server whose messages go there).
    init(
        label: String, executable: String? = nil, arguments: [String], environment extra: [String: String] = [:],
        keepingErrors: Bool = false, onLine: @escaping @Sendable (String) -> Bool = { _ in false }
    ) throws {
        self.label = label
        self.onLine = onLine
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        if keepingErrors { process.standardError = stdout }
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let reader = stdout.fileHandleForReading
        let thread = Thread { [self] in readLines(from: reader) }
        thread.name = "\(label) output"
        thread.start()
    }

    private func readLines(from handle: FileHandle) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            // read(2) itself: FileHandle.availableData traps when a signal interrupts it.
            let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: chunk[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if onLine(line) { continue }
                arrived.lock()
                output.withLock { $0.lines.append(line) }
                arrived.broadcast()
                arrived.unlock()
            }
        }
        arrived.lock()
        output.withLock { $0.ended = true }
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
    /// `timeout` seconds, or once the child's output has ended without one.
    func waitForLine(prefixes: [String], timeout: Double) -> String? {
        waitForLine(timeout: timeout) { line in prefixes.contains { line.hasPrefix($0) } }
    }

    /// Waits for (and removes) the first kept line containing `text`; nil as `waitForLine`.
    func waitForLine(containing text: String, timeout: Double) -> String? {
        waitForLine(timeout: timeout) { $0.contains(text) }
    }

    private func waitForLine(timeout: Double, where matches: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        arrived.lock()
        defer { arrived.unlock() }
        while true {
            let (found, ended) = output.withLock { output -> (String?, Bool) in
                guard let index = output.lines.firstIndex(where: matches) else { return (nil, output.ended) }
                return (output.lines.remove(at: index), output.ended)
            }
            if let found { return found }
            if ended { return nil }
            if !arrived.wait(until: deadline) { return nil }
        }
    }

    /// Every line kept so far, for a failure's message.
    var keptLines: [String] { output.withLock { $0.lines } }

    /// Ends a child that stops on SIGTERM (as `voicechat` does): SIGTERM, and SIGKILL after 5 s.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        if !waitForExit(seconds: 5) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Kills it at once (SIGKILL), as a crash or an OOM kill would, and waits for it to be gone.
    func killAbruptly() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Descriptors it holds open.
    var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? 0
    }

    /// User + system CPU seconds so far.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields after the command: state is [0]; utime and stime are fields 14 and 15 of the whole line.
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident set size in bytes.
    var residentBytes: Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    /// Asks the child to stop and closes its standard input; after 5 s terminates it (SIGTERM),
    /// and after 2 s more kills it (SIGKILL), by its PID.
    func stop() {
        send("stop")
        writeLock.withLock { _ in try? input.close() }
        if !waitForExit(seconds: 5) {
            process.terminate()
            if !waitForExit(seconds: 2) { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }

    /// Waits up to `seconds` for it to exit; true once it has.
    func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }
}
