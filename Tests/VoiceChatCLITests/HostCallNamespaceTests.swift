import Foundation
import Testing

/// Two hosts: `listen` in one network namespace, `call` in another, joined by a veth pair. Real time:
/// paced suite.
@Suite struct HostCallNamespaceTests {
    @Test(.needsNetworkNamespaces)
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

    /// The caller's link goes down for 2 s mid-call: its sends fail with "network unreachable",
    /// which closes a NIO datagram socket. Voice moves to the signalling connection meanwhile, and
    /// back to direct UDP once the link returns (the socket is bound again on its port).
    @Test(.needsNetworkNamespaces)
    func aCallGoesBackToDirectUDPWhenTheLinkReturns() throws {
        let namespaces = try NetworkNamespaces(label: "o")
        defer { namespaces.remove() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outageOver = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 6) {
            namespaces.setSecondLink(up: false)
            Thread.sleep(forTimeInterval: 2)
            namespaces.setSecondLink(up: true)
            outageOver.signal()
        }
        let run = try HostCallRun.run(
            directory: directory,
            listenArguments: [
                "--port", "7300", "--name", "alice", "--input", CommandRunner.fixture("speech-female.wav"),
                "--output", "/dev/null", "--duration", "24",
            ],
            callArguments: [
                "\(namespaces.firstAddress):7300", "--name", "bob", "--input", CommandRunner.fixture("speech-male.wav"),
                "--output", "/dev/null", "--duration", "15",
            ],
            listenerPrefix: namespaces.prefix(namespaces.first), callerPrefix: namespaces.prefix(namespaces.second),
            seconds: 25)
        outageOver.wait()
        let transcript = run.transcript
        #expect(run.callerStatus == 0, "\(transcript)")
        let changes = run.caller.standardOutput.split(separator: "\n").filter { $0.hasPrefix("path to alice changed") }
        #expect(!changes.isEmpty, "the outage did not move the call off direct UDP: \(transcript)")
        #expect(changes.last == "path to alice changed: direct", "\(transcript)")
        #expect(run.caller.standardOutput.contains("summary: path direct"), "\(transcript)")
    }

    @Test(.needsNetworkNamespaces)
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
