import Foundation
import VoiceControl
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceIO
import VoiceRelay
import VoiceWire

/// One of the demo's two players: an engine that speaks a fixture clip and records what it hears,
/// in the match "demo" through the relay, as `voicechat join` would run it.
final class DemoPlayer {
    let name: String
    let says: URL
    let heardFile: URL
    let speechSeconds: Double
    let control: MatchControl
    private let local: CallEngine
    private let client: RelayMatchClient
    private let match: Match

    private init(
        name: String, says: URL, heardFile: URL, speechSeconds: Double, local: CallEngine, client: RelayMatchClient,
        match: Match, control: MatchControl
    ) {
        self.name = name
        self.says = says
        self.heardFile = heardFile
        self.speechSeconds = speechSeconds
        self.local = local
        self.client = client
        self.match = match
        self.control = control
    }

    static func join(
        name: String, says: URL, heard: URL, relay: RelayServer, port: Int, path: DemoCommand.DemoPath,
        tuning: EngineTuningOptions,
        gate: DemoGate
    ) async throws(CommandFailure) -> DemoPlayer {
        let input: WAVFileInput
        let output: WAVFileOutput
        do {
            // On demand: the engine thread's clock paces both, and the gate lines them up. The
            // engine thread runs at real-time priority, so the recording waits for the disk on
            // its own thread.
            input = try WAVFileInput(path: says.path, channels: 1, pacing: .onDemand)
            output = try WAVFileOutput(path: heard.path, channels: 1, pacing: .onDemand, writesInBackground: true)
        } catch {
            throw CommandFailure(error.description)
        }
        let token: String
        do {
            token = try RelayToken.sign(
                match: "demo", participant: name, expiry: UInt64(Date().timeIntervalSince1970) + 3600,
                secret: relay.configuration.secret
            ).text
        } catch {
            throw CommandFailure("cannot sign a token for \(name): \(error)")
        }
        let options = path.choice.relayOptions(host: "127.0.0.1", port: port, token: token, primary: false)
        let local = try await CallEngine.open(
            participant: ParticipantID(name),
            configuration: EngineConfiguration(
                complexity: tuning.complexity,
                maximumDelayMilliseconds: tuning.maximumDelayMilliseconds,
                forcedPath: path.choice.forcedPath, speechProcessing: tuning.speechProcessing,
                echoCancellation: tuning.echoCancellationMode),
            input: GatedInput(input, gate: gate), output: GatedOutput(output, gate: gate), host: "127.0.0.1",
            udpPort: 0)
        let client: RelayMatchClient
        do {
            client = try await RelayMatchClient.connect(
                host: "127.0.0.1", port: port, token: token, participant: ParticipantID(name))
        } catch {
            await local.shutDown()
            throw CommandFailure("\(name) cannot join the demo match: \(error)")
        }
        do {
            let (match, channels) = try MatchSession.join(
                "demo", engine: local.engine, client: client, relay: options, channels: ["lobby"], active: "lobby")
            return DemoPlayer(
                name: name, says: says, heardFile: heard, speechSeconds: Double(input.frameCount) / 48_000,
                local: local, client: client, match: match, control: MatchControl(match: match, channels: channels))
        } catch {
            await client.close()
            await local.shutDown()
            throw CommandFailure("\(name) cannot join the demo match: \(error)")
        }
    }

    func start() throws(CommandFailure) {
        try local.start()
    }

    /// Whether voice from `other` can reach this player: a path is up, which takes both players'
    /// keys (probes are sealed).
    func hears(_ other: ParticipantID) -> Bool { match.path(to: other) != nil }

    func pathName(to other: ParticipantID) -> String { match.path(to: other)?.rawValue ?? "none" }

    func statistics() -> [ParticipantStatistics] { local.engine.statistics() }

    /// "alice says -18 dB, hears -21 dB" for the meter lines.
    func meterLine() -> String {
        let snapshot = control.snapshot()
        func level(_ db: Float) -> String { db <= -60 ? "  –   " : String(format: "%4.0f dB", db) }
        return "\(name) says \(level(snapshot.inputLevelDB)), hears \(level(snapshot.outputLevelDB))"
    }

    /// Leaves the match, stops the engine (which finishes the WAV file) and closes the socket.
    func leave() async {
        match.disconnect()
        await client.close()
        await local.shutDown()
    }
}
