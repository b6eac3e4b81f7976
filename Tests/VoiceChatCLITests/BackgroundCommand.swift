import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A command started in the background (a listener), with its output going to files so a test can
/// watch for a line while it runs. Stopped by its PID if it outlives the test.
final class BackgroundCommand {
    let process = Process()
    let outputFile: URL
    let errorFile: URL

    init(executable: String, arguments: [String], directory: URL, label: String, environment: [String: String] = [:])
        throws
    {
        outputFile = directory.appendingPathComponent("\(label).out")
        errorFile = directory.appendingPathComponent("\(label).err")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var standardOutput: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Waits up to `seconds` for `text` to appear on its standard output.
    func waitForOutput(_ text: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if standardOutput.contains(text) { return true }
            if !process.isRunning { return standardOutput.contains(text) }
            usleep(50_000)
        }
        return false
    }

    /// Waits up to `seconds` for it to exit; stops it (SIGTERM, then SIGKILL) if it does not.
    /// Returns its exit status, or nil when it had to be stopped.
    @discardableResult
    func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        guard process.isRunning else { return process.terminationStatus }
        stop()
        return nil
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
