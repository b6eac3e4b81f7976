import Foundation
import Testing

/// `listen` and `call` as two processes on this host, WAV in and out. Real time: paced suite.
@Suite struct HostCallLoopbackTests {
    /// `path` is the listener's `--path`; the caller chooses for itself.
    private func call(path: String?, port testPort: TestPort, expectPath: String) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = testPort.port
        let listenerHeard = directory.appendingPathComponent("listener-heard.wav").path
        let listenerRecord = directory.appendingPathComponent("listener-record.wav").path
        let callerHeard = directory.appendingPathComponent("caller-heard.wav").path
        let pathArguments = path.map { ["--path", $0] } ?? []
        let run = try HostCallRun.run(
            directory: directory,
            listenArguments: [
                "--port", String(port), "--name", "alice", "--input", CommandRunner.fixture("speech-female.wav"),
                "--output", listenerHeard, "--record", listenerRecord, "--duration", "14",
            ] + pathArguments,
            callArguments: [
                "127.0.0.1:\(port)", "--name", "bob", "--input", CommandRunner.fixture("speech-male.wav"),
                "--output", callerHeard, "--duration", "9",
            ],
            seconds: 20)
        let transcript = run.transcript
        #expect(run.callerStatus == 0, "\(transcript)")
        #expect(run.listenerStatus == 0, "\(transcript)")
        #expect(run.caller.standardOutput.contains("path \(expectPath)"), "\(transcript)")
        #expect(run.listener.standardOutput.contains("incoming call from bob"), "\(transcript)")
        #expect(run.caller.standardOutput.contains("summary: path \(expectPath), rtt"), "\(transcript)")
        // Both sides on the same path: a caller left to choose settles on what the listener forced
        // (it took direct UDP while the listener sent over the signalling connection).
        #expect(run.listener.standardOutput.contains("summary: path \(expectPath), rtt"), "\(transcript)")
        try run.expectSpeech([
            listenerHeard: "speech-male.wav", listenerRecord: "speech-male.wav", callerHeard: "speech-female.wav",
        ])
    }

    @Test func aCallBetweenTwoProcessesCarriesSpeechBothWaysDirectly() throws {
        try call(path: nil, port: .loopbackDirect, expectPath: "direct")
    }

    @Test func aCallCarriedOverTheSignallingConnectionCarriesSpeechAndBothSidesSaySo() throws {
        try call(path: "app", port: .loopbackApp, expectPath: "app")
    }
}
