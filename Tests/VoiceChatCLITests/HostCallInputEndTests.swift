import Foundation
import Testing

/// A call or a match whose `--input` file ends, with no `--duration` to run for, ends half a
/// second later, as `loopback` does at the end of its input (before, it ran on until Ctrl-C).
@Suite struct HostCallInputEndTests {
    @Test func aCallEndsWhenItsInputFileEnds() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = String(TestPort.inputEnd.port)
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--host", "127.0.0.1", "--port", port, "--input", CommandRunner.fixture("speech-male.wav"),
                "--output", "/dev/null", "--duration", "30",
            ],
            directory: directory, label: "listener")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 10), "\(listener.standardError)")
        let started = Date()
        // tone-1k.wav lasts 2 s.
        let call = try CommandRunner.run([
            "call", "127.0.0.1:\(port)", "--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null",
        ])
        let took = Date().timeIntervalSince(started)
        let said = call.standardOutput + call.standardError
        #expect(call.status == 0, "\(said)")
        #expect(said.contains("ended after") && said.contains("the input file ended"), "\(said)")
        #expect(took < 15, "the call took \(took) s")
        #expect(listener.waitForExit(seconds: 10) == 0, "\(listener.standardError)")
    }
}
