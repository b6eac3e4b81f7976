import ArgumentParser
import VoiceControl

/// How a running session can be watched and steered from outside: a stats file, a control socket,
/// and (on a terminal) the interactive console. Shared by the commands that run a call or a match.
struct ObservationOptions: ParsableArguments {
    @Option(
        name: .customLong("stats-json"),
        help: ArgumentHelp(
            "Write one JSON line per second to this file: levels, speaking, path, rtt, loss, jitter and buffer "
                + "delay per participant (\"-\" for standard output). Example: --stats-json /tmp/call.jsonl",
            valueName: "file"))
    var statsJSON: String?

    @Option(
        name: .customLong("control"),
        help: ArgumentHelp(
            "Listen on this Unix-domain socket for JSON-line commands ("
                + ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")
                + "; send {\"command\":\"help\"} for what each takes). "
                + "Example: --control /tmp/voice.sock, then: "
                + "echo '{\"id\":1,\"command\":\"mute\"}' | nc -U -q1 /tmp/voice.sock",
            valueName: "path"))
    var control: String?

    @Option(
        name: .customLong("summary-json"),
        help: ArgumentHelp(
            "When the session ends, write its summary to this file as one JSON object: how long it ran, why it "
                + "ended, and every other participant's path and receive statistics. Example: --summary-json "
                + "/tmp/summary.json",
            valueName: "file"))
    var summaryJSON: String?

    @Option(
        help: ArgumentHelp(
            "What the session prints: notice its start, end and summary; info (default) adds what happens "
                + "(paths, players, channels); debug adds each player's statistics every second; warning only "
                + "what went wrong. Example: --log-level debug",
            valueName: "level"))
    var logLevel = LogLevelOption(.info)

    @Flag(
        name: .customLong("no-console"),
        help: "Do not show the interactive console even when standard input and output are a terminal.")
    var noConsole = false

    /// Whether the session shows the console (a terminal on both ends, not turned off, and
    /// standard output not carrying the stats).
    var showsConsole: Bool { InteractiveConsole.isAvailable && !noConsole && statsJSON != "-" }

    /// Refuses push-to-talk when nothing could press the talk key: no console and no control
    /// socket. The microphone would then send nothing for the whole session, without a word.
    func validatePushToTalk(_ pushToTalk: Bool) throws {
        guard pushToTalk, !showsConsole, control == nil else { return }
        throw ValidationError(
            "--ptt needs a key to talk with: run on a terminal for the console (t talks), or add --control "
                + "and send {\"command\":\"talk\",\"down\":true}; without either nothing would be sent.")
    }

    /// Checks the paths now, so that a mistyped one fails at start-up rather than when the
    /// session starts (for `listen`, when a caller arrives).
    func validate() throws {
        if let statsJSON, statsJSON.isEmpty {
            throw ValidationError("--stats-json needs a file path (or \"-\" for standard output).")
        }
        if let statsJSON {
            do {
                try StatsJSONWriter.checkPath(statsJSON)
            } catch {
                throw ValidationError("--stats-json: \(error).")
            }
        }
        if let summaryJSON {
            if let problem = WritableLocation.problem(writing: summaryJSON) {
                throw ValidationError("--summary-json: cannot write to \(summaryJSON): \(problem).")
            }
            if summaryJSON == statsJSON || summaryJSON == control {
                throw ValidationError(
                    "--summary-json must be a path of its own, not that of --stats-json or --control.")
            }
        }
        if let control {
            do {
                try ControlServer.checkPath(control)
            } catch {
                throw ValidationError("--control: \(error).")
            }
            if control == statsJSON {
                throw ValidationError("--control and --stats-json must be different paths.")
            }
        }
    }
}
