import VoiceControl

/// Starts what `ObservationOptions` ask for around a running session (the stats file, the control
/// socket, the interactive console on a terminal) and stops them at its end. With none of the
/// options and no terminal it does nothing, so scripts and CI see no change.
///
/// Use: `let observers = try await SessionObservers.start(options, control: control)`, run the
/// session until it ends or `InterruptSignal.wasReceived` (the console's q key sets it too), then
/// `await observers.stop()`.
final class SessionObservers: Sendable {
    let statsWriter: StatsJSONWriter?
    let controlServer: ControlServer?
    let console: InteractiveConsole?
    /// Prints each player's statistics every second at `--log-level debug`.
    let debugLines: Task<Void, Never>?

    private init(
        statsWriter: StatsJSONWriter?, controlServer: ControlServer?, console: InteractiveConsole?,
        debugLines: Task<Void, Never>?
    ) {
        self.statsWriter = statsWriter
        self.controlServer = controlServer
        self.console = console
        self.debugLines = debugLines
    }

    /// The console shows when standard input and output are both a terminal, unless `--no-console`.
    /// Callers install `InterruptSignal` first: Ctrl-C must reach the console's loop (which restores
    /// the terminal) rather than end the process with the terminal still raw.
    static func start(
        _ options: ObservationOptions, control: any VoiceSessionControl
    ) async throws(CommandFailure) -> SessionObservers {
        var statsWriter: StatsJSONWriter?
        if let path = options.statsJSON {
            do {
                statsWriter = try StatsJSONWriter.start(path: path, control: control)
            } catch {
                throw CommandFailure("--stats-json: \(error)")
            }
        }
        var controlServer: ControlServer?
        if let path = options.control {
            do {
                controlServer = try await ControlServer.start(path: path, control: control)
            } catch {
                await statsWriter?.close()
                throw CommandFailure("--control: \(error)")
            }
        }
        // The console and stats on standard output would draw over each other.
        var console: InteractiveConsole?
        if options.showsConsole {
            let candidate = InteractiveConsole(control: control)
            if candidate.start() {
                console = candidate
                StatusOutput.console.withLock { $0 = candidate }
            }
        }
        let debugLines =
            options.logLevel.level <= .debug
            ? Task {
                while (try? await Task.sleep(for: .seconds(1))) != nil {
                    for line in DebugStatistics.lines(control.snapshot()) { printStatus(line, level: .debug) }
                }
            } : nil
        return SessionObservers(
            statsWriter: statsWriter, controlServer: controlServer, console: console, debugLines: debugLines)
    }

    /// Whether the console is showing (and so owns the terminal's standard output).
    var isInteractive: Bool { console != nil }

    /// Stops the console (restoring the terminal), closes the control socket and writes the stats
    /// file's last line.
    func stop() async {
        debugLines?.cancel()
        if let console {
            StatusOutput.console.withLock { $0 = nil }
            console.stop()
        }
        await controlServer?.close()
        await statsWriter?.close()
    }
}
