import Foundation
import Testing
import VoiceSimulation
import VoiceTestHarness

/// `relay`, `token` and two `join`s as four processes on this host, WAV in and out: the relay carries
/// the match's signalling and, with `--path relay` / `relay-tcp`, its voice. Real time: paced suite.
@Suite struct HostCallRelayJoinTests {
    static let secret = "0123456789abcdef0123456789abcdef"

    /// `voicechat join` for `name` in match "arena" on the relay at `port`, saying `fixture` and
    /// recording what it hears, with `options` besides; returns it and its recording's path.
    private static func join(
        _ name: String, says fixture: String, port: Int, secretFile: URL, directory: URL, options: [String]
    ) throws -> (BackgroundCommand, String) {
        let token = try CommandRunner.token(secretFile: secretFile, match: "arena", participant: name)
        let heard = directory.appendingPathComponent("\(name)-heard.wav").path
        let process = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "join", "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", name, "--token", token,
                "--channel", "team", "--input", CommandRunner.fixture(fixture), "--output", heard,
            ] + options,
            directory: directory, label: name)
        return (process, heard)
    }

    private func match(path: String, port testPort: TestPort) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = try CommandRunner.secretFile(Self.secret, in: directory)
        let port = testPort.port
        let relay = try BackgroundCommand.relay(port: port, secretFile: secretFile, seconds: 40, directory: directory)
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")

        func join(_ name: String, says fixture: String) throws -> (BackgroundCommand, String) {
            try Self.join(
                name, says: fixture, port: port, secretFile: secretFile, directory: directory,
                options: ["--channel", "all", "--active", "team", "--path", path, "--duration", "11"])
        }
        let talk = try Talk(relay: relay, join: join)
        let (alice, bob, transcript) = (talk.alice, talk.bob, talk.transcript)
        #expect(talk.aliceStatus == 0, "\(transcript)")
        #expect(talk.bobStatus == 0, "\(transcript)")
        #expect(alice.standardOutput.contains("path to bob: \(path)"), "\(transcript)")
        #expect(bob.standardOutput.contains("summary: alice: path \(path), rtt"), "\(transcript)")
        try talk.expectEachHeardTheOther()
    }

    /// alice says speech-female.wav and bob speech-male.wav in two `join` processes, to their end.
    private struct Talk {
        let alice: BackgroundCommand
        let bob: BackgroundCommand
        let aliceHeard: String
        let bobHeard: String
        let aliceStatus: Int32?
        let bobStatus: Int32?
        let machine: MachineStallReport
        let transcript: String

        init(relay: BackgroundCommand, join: (String, String) throws -> (BackgroundCommand, String)) throws {
            let watch = MachineStallWatch()
            (alice, aliceHeard) = try join("alice", "speech-female.wav")
            (bob, bobHeard) = try join("bob", "speech-male.wav")
            aliceStatus = alice.waitForExit(seconds: 30)
            bobStatus = bob.waitForExit(seconds: 15)
            machine = watch.finish()
            transcript = """
                machine: \(machine)
                alice (exit \(aliceStatus.map(String.init) ?? "stopped")):
                \(alice.standardOutput)\(alice.standardError)
                bob (exit \(bobStatus.map(String.init) ?? "stopped")):
                \(bob.standardOutput)\(bob.standardError)
                relay: \(relay.standardOutput)\(relay.standardError)
                """
        }

        /// Each recording holds the other's speech. Bob started speaking only once his process
        /// ran, so what alice heard may lag longer.
        func expectEachHeardTheOther() throws {
            try HostCallRun.expectSpeech(
                heardPath: aliceHeard, sentFixture: "speech-male.wav", lags: -50...400, machine: machine,
                context: transcript)
            try HostCallRun.expectSpeech(
                heardPath: bobHeard, sentFixture: "speech-female.wav", lags: -400...50, machine: machine,
                context: transcript)
        }
    }

    @Test func twoPlayersTalkThroughTheRelayOverUDP() throws {
        try match(path: "relay", port: .relayJoinUDP)
    }

    @Test func twoPlayersTalkThroughTheRelayOverTCP() throws {
        try match(path: "relay-tcp", port: .relayJoinTCP)
    }

    /// The relay stops 4 s into a match whose players talk over direct UDP: they keep talking,
    /// and neither sees the other disconnect (they did once).
    @Test func playersOnDirectUDPKeepTalkingWhenTheRelayStops() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = try CommandRunner.secretFile(Self.secret, in: directory)
        let port = TestPort.relayStops.port
        let relay = try BackgroundCommand.relay(port: port, secretFile: secretFile, seconds: 4, directory: directory)
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")
        func join(_ name: String, says fixture: String) throws -> (BackgroundCommand, String) {
            try Self.join(
                name, says: fixture, port: port, secretFile: secretFile, directory: directory,
                options: ["--duration", "10"])
        }
        let talk = try Talk(relay: relay, join: join)
        let (alice, bob, transcript) = (talk.alice, talk.bob, talk.transcript)
        #expect(talk.aliceStatus == 0 && talk.bobStatus == 0, "\(transcript)")
        #expect(relay.standardOutput.contains("relay stopping"), "\(transcript)")
        for (player, other) in [(alice, "bob"), (bob, "alice")] {
            #expect(player.standardOutput.contains("path to \(other): direct"), "\(transcript)")
            #expect(!player.standardOutput.contains("\(other) disconnected"), "\(transcript)")
            #expect(player.standardOutput.contains("summary: \(other): path direct"), "\(transcript)")
        }
        try talk.expectEachHeardTheOther()
    }

    @Test func theDemoRunsARelayAndTwoPlayersAndReportsWhatEachHeard() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CommandRunner.run([
            "demo", "--duration", "5", "--output-directory", directory.path,
        ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("alice and bob hear each other (path relay)"))
        #expect(result.standardOutput.contains("alice heard bob: path relay, rtt"))
        #expect(result.standardOutput.contains("bob heard alice: path relay, rtt"))
        #expect(result.standardOutput.contains("delay"))
        for name in ["alice", "bob"] {
            let heard = directory.appendingPathComponent("\(name)-heard.wav").path
            #expect(FileManager.default.fileExists(atPath: heard))
            #expect(try SpeechEnvelope.loudFrames(SpeechEnvelope.levels(ofFile: heard)) > 50)
        }
    }
}
