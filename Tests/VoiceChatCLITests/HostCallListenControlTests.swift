import Foundation
import Testing

/// `listen --control` opens its socket at once, not when a call starts (before, nothing could be
/// set while it waited): the microphone muted before anyone calls stays muted in the call, and
/// what only a call has is refused until one runs, saying so.
@Suite struct HostCallListenControlTests {
    @Test func settingsMadeBeforeTheCallHoldInIt() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("listen.sock").path
        let port = String(TestPort.listenControl.port)
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--host", "127.0.0.1", "--port", port, "--input", CommandRunner.fixture("speech-male.wav"),
                "--output", "/dev/null", "--duration", "30", "--control", socket,
            ],
            directory: directory, label: "listener")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 10), "\(listener.standardError)")
        #expect(FileManager.default.fileExists(atPath: socket), "no control socket before the call")

        let mute = try ControlSocketClient.request(#"{"id":1,"command":"mute"}"#, socket: socket)
        #expect(mute.contains(#""ok":true"#), "\(mute)")
        let volume = try ControlSocketClient.request(#"{"id":2,"command":"set-volume","volume":0.5}"#, socket: socket)
        #expect(volume.contains(#""ok":false"#) && volume.contains("needs a call"), "\(volume)")
        let waiting = try ControlSocketClient.request(#"{"id":3,"command":"stats"}"#, socket: socket)
        #expect(waiting.contains(#""microphoneMuted":true"#), "\(waiting)")

        let caller = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "call", "127.0.0.1:\(port)", "--input", CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null",
                "--duration", "6",
            ],
            directory: directory, label: "caller")
        defer { caller.stop() }
        #expect(listener.waitForOutput("call with caller started", seconds: 10), "\(listener.standardError)")
        let inCall = try ControlSocketClient.request(#"{"id":4,"command":"stats"}"#, socket: socket)
        #expect(inCall.contains(#""microphoneMuted":true"#), "\(inCall)")
        #expect(inCall.contains(#""participant":"caller""#), "\(inCall)")
        #expect(caller.waitForExit(seconds: 15) == 0, "\(caller.standardError)")
    }
}
