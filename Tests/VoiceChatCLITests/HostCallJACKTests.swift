import Foundation
import Testing
import VoiceSimulation
import VoiceTestHarness

/// A call whose listener captures from and plays to ALSA devices backed by a JACK dummy server, so
/// both run at the pace of a real-time clock. Its microphone hears `aplay` playing a speech fixture
/// into JACK. Real time: paced suite.
@Suite struct HostCallJACKTests {
    static let runnable = JACKServer.isInstalled && JACKServer.executable("aplay") != nil

    @Test(.enabled(if: runnable, "needs jackd2, libasound2-plugins and alsa-utils (apt-get install them)"))
    func aCallWithRealTimeDevicesCarriesSpeechBothWays() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let id = getpid()
        let serverName = "vccli\(id)"
        let feed = "vcfeed\(id)"
        let configuration = """
            </usr/share/alsa/alsa.conf>
            pcm.vc_feed { type plug slave.pcm { type jack name "\(feed)" playback_ports { 0 system:playback_1 } } }
            pcm.vc_callmic { type plug slave.pcm { type jack name "vcmic\(id)" capture_ports { 0 "\(feed):out_000" } } }
            pcm.vc_callspk { type plug slave.pcm { type jack name "vcspk\(id)" playback_ports { 0 system:playback_2 } } }

            """
        let configurationFile = directory.appendingPathComponent("asound.conf")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        let server = try JACKServer(name: serverName, logDirectory: directory)
        defer { server.stop() }
        let environment = [
            "ALSA_CONFIG_PATH": configurationFile.path, "JACK_DEFAULT_SERVER": serverName,
            "JACK_NO_AUDIO_RESERVATION": "1",
        ]
        // The feed's JACK client must exist before the microphone connects to its port. Two seconds
        // of buffer let aplay itself be starved on a busy machine without cutting the speech.
        let player = try BackgroundCommand(
            executable: JACKServer.executable("aplay") ?? "aplay",
            arguments: ["-q", "--buffer-time=2000000", "-D", "vc_feed", CommandRunner.fixture("speech-female.wav")],
            directory: directory,
            label: "aplay", environment: environment)
        defer { player.stop() }
        usleep(500_000)

        let listenerRecord = directory.appendingPathComponent("listener-record.wav").path
        let callerHeard = directory.appendingPathComponent("caller-heard.wav").path
        let port = TestPort.jackCall.port
        let run = try HostCallRun.run(
            directory: directory,
            listenArguments: [
                "--port", String(port), "--name", "alice", "--capture", "vc_callmic", "--playback", "vc_callspk",
                "--record", listenerRecord, "--duration", "12",
            ],
            callArguments: [
                "127.0.0.1:\(port)", "--name", "bob", "--input", CommandRunner.fixture("speech-male.wav"),
                "--output", callerHeard, "--duration", "8",
            ], environment: environment, seconds: 20)
        let transcript = run.transcript + "\naplay: \(player.standardError)\n\(server.connections())"
        #expect(run.callerStatus == 0, "\(transcript)")
        #expect(run.listenerStatus == 0, "\(transcript)")
        // What the listener played to its JACK speaker (and recorded) is the caller's speech.
        try HostCallRun.expectSpeech(
            heardPath: listenerRecord, sentFixture: "speech-male.wav", machine: run.machine, context: transcript)
        // What the caller heard is what the listener's JACK microphone captured: the fed speech, which
        // started playing before the call, hence the lags into the clip.
        try HostCallRun.expectSpeech(
            heardPath: callerHeard, sentFixture: "speech-female.wav", lags: -50...400, machine: run.machine,
            context: transcript)
    }
}
