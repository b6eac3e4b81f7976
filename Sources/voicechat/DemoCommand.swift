import ArgumentParser
import Foundation
import Logging
import VoiceControl
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceIO
import VoiceRelay
import VoiceWire

/// The first thing to run: a relay and two players on this host, each speaking a fixture clip to
/// the other through the relay, with meters while it runs and a summary of what each side heard.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A relay and two players on this host talk through it; hear and score the result.",
        discussion: """
            Starts a relay on 127.0.0.1, then alice (Fixtures/speech-male.wav) and bob \
            (Fixtures/speech-female.wav) join one match through it, as `voicechat join` does, and speak \
            to each other. Shows meters while they talk (alice's view, with her keys, on a terminal), \
            writes what each side heard to WAV, and ends with the path, delay, loss and, when the scorer \
            is set up (scripts/setup.sh), a wideband PESQ score per direction.

            The clips come from --fixtures, else from the project's Fixtures folder, found through \
            $VOICECHAT_ROOT, the current folder or the folders above the voicechat binary, so the demo \
            runs from any folder as long as the binary stays in the project's build.

            Examples:
              voicechat demo
              voicechat demo --path relay-tcp --output-directory /tmp/demo
              voicechat demo --path auto --stats-json demo-stats.jsonl
              voicechat demo --fixtures ~/voicechat/Fixtures
            """
    )

    @Option(help: ArgumentHelp("Where to write what each side heard.", valueName: "directory"))
    var outputDirectory = "demo-output"

    @Option(
        help: ArgumentHelp(
            "relay (UDP through the relay), relay-tcp (TCP through it) or auto (direct when possible).",
            valueName: "path"))
    var path: DemoPath = .relay

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds of speech (default: the whole clips, about 13 s).", valueName: "seconds"),
        transform: NumericArgument.duration.double)
    var duration: Double?

    @Option(
        help: ArgumentHelp(
            "A folder holding the clips the players say, speech-male.wav and speech-female.wav (default: the "
                + "project's Fixtures folder).", valueName: "directory"))
    var fixtures: String?

    static let clips = ["speech-male.wav", "speech-female.wav"]

    @OptionGroup var tuning: EngineTuningOptions

    @OptionGroup var observation: ObservationOptions

    enum DemoPath: String, ExpressibleByArgument, CaseIterable {
        case relay
        case relayTCP = "relay-tcp"
        case auto

        /// The same choice as `join --path` makes.
        var choice: CallPathChoice {
            switch self {
            case .relay: .relay
            case .relayTCP: .relayTCP
            case .auto: .auto
            }
        }
    }

    func validate() throws {
        if let fixtures {
            let missing = Self.clips.filter {
                !FileManager.default.fileExists(atPath: URL(fileURLWithPath: fixtures).appendingPathComponent($0).path)
            }
            guard missing.isEmpty else {
                throw ValidationError(
                    "--fixtures \(fixtures) holds no \(missing.joined(separator: " or ")); give the folder that holds "
                        + Self.clips.joined(separator: " and ") + " (the project's Fixtures folder).")
            }
        }
    }

    /// The two clips: from --fixtures, else the project's.
    private func clips() throws(CommandFailure) -> (male: URL, female: URL) {
        if let fixtures {
            let folder = URL(fileURLWithPath: fixtures)
            return (folder.appendingPathComponent(Self.clips[0]), folder.appendingPathComponent(Self.clips[1]))
        }
        guard let male = ProjectFiles.fixture(Self.clips[0]), let female = ProjectFiles.fixture(Self.clips[1]) else {
            throw CommandFailure(
                "cannot find the demo's clips (\(Self.clips.joined(separator: " and "))): looked in "
                    + "\(ProjectFiles.searchedPlaces); pass --fixtures with the folder that holds them")
        }
        return (male, female)
    }

    func run() async throws {
        StatusOutput.configure(for: observation)
        InterruptSignal.install()
        let (maleSpeech, femaleSpeech) = try clips()
        let directory = URL(fileURLWithPath: outputDirectory)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create --output-directory \(outputDirectory): \(error.localizedDescription)")
        }
        var logger = Logger(label: "voicechat.demo.relay")
        // Its joins and leaves are the demo's own; below info, --log-level is the relay's too.
        logger.logLevel = observation.logLevel.level < .info ? observation.logLevel.level : .warning
        let relay = RelayServer(
            configuration: RelayConfiguration(host: "127.0.0.1", port: 0, secret: RelaySecret.random()), logger: logger)
        let port: Int
        do {
            port = try await relay.start()
        } catch {
            throw CommandFailure("\(error)")
        }
        printStatus("relay listening on UDP and TCP 127.0.0.1:\(port)")
        let gate = DemoGate()
        var players: [DemoPlayer] = []
        var speechSeconds: Double?
        let outcome: Result<Void, CommandFailure>
        do throws(CommandFailure) {
            for (name, speech) in [("alice", maleSpeech), ("bob", femaleSpeech)] {
                players.append(
                    try await DemoPlayer.join(
                        name: name, says: speech, heard: directory.appendingPathComponent("\(name)-heard.wav"),
                        relay: relay, port: port, path: path, tuning: tuning, gate: gate))
            }
            for player in players { try player.start() }
            try await waitUntilConnected(players)
            gate.release()
            let seconds = duration ?? players.map(\.speechSeconds).min() ?? 10
            speechSeconds = seconds
            printStatus(
                "alice and bob hear each other (path \(players[0].pathName(to: "bob"))); "
                    + String(format: "talking for %.0f s", seconds))
            let observers = try await SessionObservers.start(observation, control: players[0].control)
            await talk(for: seconds + 1, players: players, meters: !observers.isInteractive)
            await observers.stop()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        let statistics = players.map { $0.statistics() }
        for player in players { await player.leave() }
        await relay.shutdown()
        try outcome.get()
        printStatus("what each side heard is in \(directory.path)/", level: .notice)
        for (index, listener) in players.enumerated() {
            let speaker = players[1 - index]
            let heard = listener.heardFile
            printStatus(
                "\(listener.name) heard \(speaker.name): "
                    + (statistics[index].first { $0.participant.rawValue == speaker.name }.map(MatchSummary.describe)
                        ?? "no statistics")
                    + "; " + DemoScore.describe(said: speaker.says, heard: heard), level: .notice)
        }
        if InterruptSignal.wasReceived { printStatus("(stopped early with Ctrl-C)", level: .notice) }
        if let path = observation.summaryJSON {
            // Alice's side, as the console and the stats file show it.
            SessionSummaryFile(
                kind: "match", participant: "alice", match: "demo", seconds: speechSeconds ?? 0,
                ending: InterruptSignal.wasReceived ? InterruptSignal.ending : "duration reached",
                participants: statistics[0]
            ).write(to: path)
        }
        printStatus(Self.nextSteps, level: .notice)
    }

    /// What to try after the demo: the same engine between two hosts.
    static let nextSteps =
        "next: a call between two hosts, `voicechat listen --name alice` on one and `voicechat call HOST:7300 "
        + "--name bob` on the other; a match through a relay, `voicechat relay` and `voicechat join` "
        + "(`voicechat help join`); the sound devices here, `voicechat devices`"

    private func waitUntilConnected(_ players: [DemoPlayer]) async throws(CommandFailure) {
        let deadline = MediaTime.monotonicNow() + MediaTime.milliseconds(15_000)
        while !(players[0].hears("bob") && players[1].hears("alice")) {
            if InterruptSignal.wasReceived { throw CommandFailure("interrupted before the players met") }
            if MediaTime.monotonicNow() > deadline {
                throw CommandFailure(
                    "alice and bob did not reach each other through the relay within 15 s; "
                        + "check that UDP and TCP on 127.0.0.1 are not blocked")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Lets them talk, printing a meter line a second when the console is not showing.
    private func talk(for seconds: Double, players: [DemoPlayer], meters: Bool) async {
        let end = MediaTime.monotonicNow() + MediaTime.milliseconds(seconds * 1000)
        var nextLine = MediaTime.monotonicNow()
        while MediaTime.monotonicNow() < end, !InterruptSignal.wasReceived {
            if meters, MediaTime.monotonicNow() >= nextLine {
                printStatus(players.map { $0.meterLine() }.joined(separator: "   "))
                nextLine += MediaTime.milliseconds(1000)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
