import Foundation

/// A process this benchmark started, with its CPU time and resident memory read from /proc.
final class ChildProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // The allocation interposer would slow the process under test.
        environment["LD_PRELOAD"] = nil
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Reads stdout up to the first line starting with `prefix`.
    func readLine(prefix: String) -> String? {
        var line: [UInt8] = []
        let handle = output.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            guard let first = byte.first else { return nil }
            if first == UInt8(ascii: "\n") {
                let text = String(decoding: line, as: UTF8.self)
                if text.hasPrefix(prefix) { return text }
                line = []
            } else {
                line.append(first)
            }
        }
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

    /// Closes its standard input (it stops itself) and waits; terminates it after 5 s.
    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
