import Foundation
import Testing
import VoiceTestHarness

#if canImport(Glibc)
    import Glibc
#endif

/// ALSA's `null`, the one PCM a machine without a sound card lists, has no clock: the device
/// threads keep its rate instead of spinning, so a loopback takes as long as it says, a call to a
/// listener on `null` starts and ends, and the listener stops within a second of Ctrl-C.
@Suite(.serialized) struct HostCallNullDeviceTests {
    @Test func aLoopbackOnNullDevicesRunsInRealTime() throws {
        let started = Date()
        let result = try CommandRunner.run(["loopback", "--capture", "null", "--playback", "null", "--duration", "2"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.standardError)")
        // Before, it ended after 1 s at 187 % CPU, "dropped 3491187296 frames".
        #expect(elapsed >= 1.9, "2 s of audio took \(elapsed) s")
        let said = result.standardOutput + result.standardError
        let dropped = said.firstMatch(of: /dropped (\d+) frames/).flatMap { Int($0.1) }
        #expect(dropped.map { $0 < 48_000 } == true, "\(said)")
    }

    @Test func aCallToAListenerOnNullDevicesStartsAndCtrlCEndsItWithinASecond() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = String(TestPort.nullDevices.port)
        let listener = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "listen", "--host", "127.0.0.1", "--port", port, "--capture", "null", "--playback", "null",
                "--no-console",
            ],
            directory: directory, label: "listener")
        defer { listener.stop() }
        #expect(listener.waitForOutput("listening on", seconds: 10), "\(listener.standardError)")
        let caller = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "call", "127.0.0.1:\(port)", "--input", CommandRunner.fixture("speech-male.wav"), "--output",
                "/dev/null", "--duration", "20", "--no-console",
            ],
            directory: directory, label: "caller")
        defer { caller.stop() }
        let said = { "listener: \(listener.standardOutput)\(listener.standardError)\ncaller: \(caller.standardError)" }
        // Before, the call never started and the listener spun on both cores, deaf to signals.
        #expect(listener.waitForOutput("call with caller started", seconds: 10), "\(said())")
        #expect(caller.waitForOutput("call with listener started", seconds: 10), "\(said())")
        let watch = MachineStallWatch()
        let signalled = Date()
        kill(listener.process.processIdentifier, SIGINT)
        let status = listener.waitForExit(seconds: 10)
        let took = Date().timeIntervalSince(signalled)
        let machine = watch.finish()
        #expect(status == 130, "\(said())")
        #expect(took <= 1 || !machine.keptRealTime, "Ctrl-C took \(took) s; machine: \(machine)\n\(said())")
        #expect(caller.waitForExit(seconds: 10) == 0, "\(said())")
    }
}
