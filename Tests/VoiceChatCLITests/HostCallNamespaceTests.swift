import Foundation
import Testing

/// Two hosts: `listen` in one network namespace, `call` in another, joined by a veth pair. Real time:
/// paced suite.
@Suite struct HostCallNamespaceTests {
    @Test(
        .enabled(
            if: NetworkNamespaces.available,
            "needs root and iproute2 to create network namespaces (run as root, apt-get install iproute2)"))
    func aCallBetweenTwoNetworkNamespacesCarriesSpeech() throws {
        let namespaces = try NetworkNamespaces(label: "c")
        defer { namespaces.remove() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let listenerHeard = directory.appendingPathComponent("listener-heard.wav").path
        let callerHeard = directory.appendingPathComponent("caller-heard.wav").path
        let callerRecord = directory.appendingPathComponent("caller-record.wav").path
        let run = try HostCallRun.run(
            directory: directory,
            listenArguments: [
                "--port", "7300", "--name", "alice", "--input", CommandRunner.fixture("speech-female.wav"),
                "--output", listenerHeard, "--duration", "14",
            ],
            callArguments: [
                "\(namespaces.firstAddress):7300", "--name", "bob", "--input",
                CommandRunner.fixture("speech-male.wav"), "--output", callerHeard, "--record", callerRecord,
                "--duration", "9",
            ],
            listenerPrefix: namespaces.prefix(namespaces.first), callerPrefix: namespaces.prefix(namespaces.second),
            seconds: 20)
        let transcript = run.transcript
        #expect(run.callerStatus == 0, "\(transcript)")
        #expect(run.listenerStatus == 0, "\(transcript)")
        // Between two hosts the direct path is over the veth pair.
        #expect(run.caller.standardOutput.contains("path direct"), "\(transcript)")
        try run.expectSpeech([
            listenerHeard: "speech-male.wav", callerHeard: "speech-female.wav", callerRecord: "speech-female.wav",
        ])
    }

    @Test(
        .enabled(
            if: NetworkNamespaces.available,
            "needs root and iproute2 to create network namespaces (run as root, apt-get install iproute2)"))
    func callingAnAddressWhereNothingListensFailsWithOneLine() throws {
        let namespaces = try NetworkNamespaces(label: "r")
        defer { namespaces.remove() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let caller = try BackgroundCommand(
            executable: NetworkNamespaces.ip,
            arguments: Array(namespaces.prefix(namespaces.second).dropFirst()) + [
                CommandRunner.executable.path, "call", "\(namespaces.firstAddress):7300", "--input",
                CommandRunner.fixture("tone-1k.wav"), "--output", "/dev/null",
            ], directory: directory, label: "caller")
        let status = caller.waitForExit(seconds: 15)
        #expect(status != nil && status != 0)
        let lines = caller.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(caller.standardError)")
        #expect(caller.standardError.contains("nothing is listening at \(namespaces.firstAddress):7300"))
    }
}
