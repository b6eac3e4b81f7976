import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A session that Ctrl-C or SIGTERM stops finishes cleanly and then exits as shells report a
/// signal (128 + its number), so that a script can tell it from a session that ran its course.
@Suite struct InterruptTests {
    @Test(arguments: [
        (SIGINT, Int32(130), TestPort.interruptedListener), (SIGTERM, Int32(143), TestPort.terminatedListener),
    ])
    func aSignalledSessionEndsCleanlyWithTheSignalsStatus(signal: Int32, status: Int32, port: TestPort) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--port", String(port.port), "--input", CommandRunner.fixture("tone-1k.wav"), "--output",
                "/dev/null",
            ],
            directory: directory, label: "listener")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 10), "\(listener.standardError)")
        kill(listener.process.processIdentifier, signal)
        // Before, an interrupted session exited 0, as one that ran its course does.
        #expect(listener.waitForExit(seconds: 10) == status, "\(listener.standardError)")
        #expect(listener.standardOutput.contains("stopped: interrupted, no call arrived"))
    }
}
