import Foundation
import Testing
import VoiceSimulation
import VoiceTestHarness

/// A listener and a caller run as two processes, each sending a speech fixture and writing what it
/// heard, and the checks every two-process call test makes.
struct HostCallRun {
    var listener: BackgroundCommand
    var caller: BackgroundCommand
    var listenerStatus: Int32?
    var callerStatus: Int32?
    /// Whether the machine kept real time while both ran.
    var machine: MachineStallReport

    var transcript: String {
        """
        machine: \(machine)
        listener (exit \(listenerStatus.map(String.init) ?? "stopped")):
        \(listener.standardOutput)\(listener.standardError)
        caller (exit \(callerStatus.map(String.init) ?? "stopped")):
        \(caller.standardOutput)\(caller.standardError)
        """
    }

    /// Starts `listen` with `listenArguments`, waits until it listens, runs `call` with `callArguments`,
    /// and waits for both to finish. `prefix` runs each inside something (e.g. `ip netns exec NS`).
    static func run(
        directory: URL, listenArguments: [String], callArguments: [String], listenerPrefix: [String] = [],
        callerPrefix: [String] = [], environment: [String: String] = [:], seconds: Double
    ) throws -> HostCallRun {
        func command(_ prefix: [String], _ arguments: [String]) -> (String, [String]) {
            let executable = CommandRunner.executable.path
            guard let first = prefix.first else { return (executable, arguments) }
            return (first, Array(prefix.dropFirst()) + [executable] + arguments)
        }
        let watch = MachineStallWatch()
        let (listenTool, listenFull) = command(listenerPrefix, ["listen"] + listenArguments)
        let listener = try BackgroundCommand(
            executable: listenTool, arguments: listenFull, directory: directory, label: "listener",
            environment: environment)
        guard listener.waitForOutput("listening on", seconds: 15) else {
            listener.stop()
            Issue.record("the listener did not start: \(listener.standardOutput) \(listener.standardError)")
            return HostCallRun(
                listener: listener, caller: listener, listenerStatus: nil, callerStatus: nil, machine: watch.finish())
        }
        let (callTool, callFull) = command(callerPrefix, ["call"] + callArguments)
        let caller = try BackgroundCommand(
            executable: callTool, arguments: callFull, directory: directory, label: "caller", environment: environment)
        let callerStatus = caller.waitForExit(seconds: seconds)
        let listenerStatus = listener.waitForExit(seconds: 10)
        return HostCallRun(
            listener: listener, caller: caller, listenerStatus: listenerStatus, callerStatus: callerStatus,
            machine: watch.finish())
    }

    /// `expectSpeech` for each recording of this run (path: the fixture it should carry), at the
    /// default lags, with this run's machine report and transcript.
    func expectSpeech(
        _ recordings: KeyValuePairs<String, String>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (heardPath, sentFixture) in recordings {
            try Self.expectSpeech(
                heardPath: heardPath, sentFixture: sentFixture, machine: machine, context: transcript,
                sourceLocation: sourceLocation)
        }
    }

    /// Checks that `heardPath` carries the speech of `sentFixture`: its loudness over time follows the
    /// fixture's at some delay, clearly better than it follows the other speech fixture, and it is not
    /// silence. The bar is modest because a loaded machine makes the jitter buffer drop and insert
    /// frames, which smears the envelope; a wrong or silent signal stays well below it.
    ///
    /// When `machine` did not keep real time, both ends' devices lost and padded audio at random
    /// and the envelope may follow the speech too loosely for any bar: a miss is then reported as
    /// a known issue naming the stalls, not as a failure. Silence fails either way.
    static func expectSpeech(
        heardPath: String, sentFixture: String, lags: ClosedRange<Int> = -50...250,
        machine: MachineStallReport, context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let other = sentFixture == "speech-male.wav" ? "speech-female.wav" : "speech-male.wav"
        let heard = try SpeechEnvelope.levels(ofFile: heardPath)
        let sent = try SpeechEnvelope.levels(ofFile: CommandRunner.fixture(sentFixture))
        let unrelated = try SpeechEnvelope.levels(ofFile: CommandRunner.fixture(other))
        let match = SpeechEnvelope.bestMatch(heard: heard, sent: sent, lags: lags)
        let mismatch = SpeechEnvelope.bestMatch(heard: heard, sent: unrelated, lags: lags)
        #expect(
            SpeechEnvelope.loudFrames(heard) > 100, "\(heardPath) is nearly silent\n\(context)",
            sourceLocation: sourceLocation)
        withKnownIssue(
            "the machine did not keep real time: \(machine)", isIntermittent: true, sourceLocation: sourceLocation
        ) {
            #expect(
                match.correlation > 0.5 && match.correlation > mismatch.correlation + 0.1,
                """
                envelope correlation \(match.correlation) at lag \(match.lag) frames with \(sentFixture), \
                \(mismatch.correlation) with \(other)
                \(context)
                """,
                sourceLocation: sourceLocation)
        } when: {
            !machine.keptRealTime
        }
    }

}

/// The ports of the command-line tests, one per test (tests run in parallel in one process), each
/// unlikely to be in use: different per process and per test, and below Linux's ephemeral range
/// (32768 on), where every socket bound to port 0 (the engines', the relay clients') lands.
enum TestPort: Int, CaseIterable {
    case loopbackDirect, loopbackApp, jackCall, relayJoinUDP, relayJoinTCP, nobodyListening, unknownALSADevice
    case busyListener, relayWithForgedToken, silentRelay, relayReport, relayInUse, relayForeignHost
    case listenPaths, interruptedListener, terminatedListener, endedInputListener, acceptingListener
    case relayAdmin, echoListener, readmeCall, readmeRelay, consoleOpen, consolePushToTalk, relayStops
    case proximity, nullDevices, notEchoingListener, numberingListener, relayMetricsInUse, relayBesideMetrics, inputEnd
    case listenControl, relayRestart, relayDebugLog, cExample, pythonBot
    case clusterEtcdClient, clusterEtcdPeer, clusterRelayA, clusterRelayB
    case lateEtcdClient, lateEtcdPeer, lateClusterRelay, soloRelay, rotationRelay, clusterMetrics
    case unreachableClusterRelay
    case placementEtcdClient, placementEtcdPeer, placementRelayA, placementRelayB
    case failoverEtcdClient, failoverEtcdPeer, failoverRelayA, failoverRelayB
    case drainEtcdClient, drainEtcdPeer, drainRelayA, drainRelayB
    case outageEtcdClient, outageEtcdPeer, outageRelay
    case tripleEtcdClient1, tripleEtcdPeer1, tripleEtcdClient2, tripleEtcdPeer2, tripleEtcdClient3, tripleEtcdPeer3
    case tripleRelay
    case spanEtcdClient, spanEtcdPeer, spanRelayA, spanRelayB
    case spanDrainEtcdClient, spanDrainEtcdPeer, spanDrainRelayA, spanDrainRelayB, spanDrainRelayC

    /// Ports each test process may use: 20000 + 158 × 80 + 79 stays under 32768.
    private static let perProcess = 80
    private static let processes: Int32 = 159

    var port: Int {
        precondition(Self.allCases.count <= Self.perProcess, "more test ports than a process's range holds")
        return 20_000 + Int(getpid() % Self.processes) * Self.perProcess + rawValue
    }
}

extension BackgroundCommand {
    /// `voicechat relay` on 127.0.0.1:`port` with `secretFile`, for `seconds`, reporting nothing
    /// until it stops; it prints "relay listening" once it accepts players.
    static func relay(
        port: Int, secretFile: URL, seconds: Int, directory: URL, arguments extra: [String] = []
    ) throws -> BackgroundCommand {
        try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "relay", "--host", "127.0.0.1", "--port", String(port), "--secret-file", secretFile.path,
                "--report-every", "0", "--duration", String(seconds),
            ] + extra,
            directory: directory, label: "relay")
    }
}
