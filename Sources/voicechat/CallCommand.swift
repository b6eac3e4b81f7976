import ArgumentParser
import Foundation
import VoiceControl
import VoiceCore
import VoiceEngine
import VoiceIO

struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call a host where `voicechat listen` runs, and talk until the call ends.",
        discussion: """
            Connects to HOST:PORT for signalling (TCP) and places the call; voice takes direct UDP when it \
            can pass between the hosts, else the signalling connection. Runs until the call ends, \
            --duration passes or Ctrl-C, then prints the path used and a summary (rtt, loss, jitter, \
            buffer delay).

            Examples:
              voicechat call 192.0.2.7:7300 --name bob
              voicechat call 192.0.2.7:7300 --name bob \\
                  --input Fixtures/speech-female.wav --output heard.wav --duration 10
              voicechat call [2001:db8::7]:7300 --name bob \\
                  --capture default --playback default --record heard.wav
              voicechat call alice.local:7300 --name bob \\
                  --path direct --frame-ms 10 --bitrate 24k --ptt
            """
    )

    @Argument(help: ArgumentHelp("Where the listener runs (e.g. 192.0.2.7:7300).", valueName: "host:port"))
    var address: String

    @Option(help: "This side's participant name, as the listener sees it (e.g. --name bob).")
    var name = "caller"

    @Option(
        name: .customLong("connect-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for the connection and the hello, \(NumericArgument.connectTimeout) (e.g. --connect-timeout 3) "
                + "(default: 5).", valueName: "seconds"),
        transform: NumericArgument.connectTimeout.double)
    var connectTimeout = 5.0

    @OptionGroup var call: CallOptions

    @OptionGroup var observation: ObservationOptions

    func validate() throws {
        try observation.validatePushToTalk(call.ptt)
        try call.validateWithoutRelay(command: "call")
        do {
            _ = try CallAddress(parsing: address)
        } catch {
            throw ValidationError("\(error.description)")
        }
    }

    func run() async throws {
        StatusOutput.configure(for: observation)
        InterruptSignal.install()
        let deadline = call.deadline(from: MediaTime.monotonicNow())
        let target = try CallAddress(parsing: address)
        let local = try await CallEngine.open(options: call, participant: ParticipantID(name), udpPort: 0)
        try await Self.place(
            from: local, to: target, name: name, connectTimeout: connectTimeout, call: call, observation: observation,
            until: deadline)
    }

    /// Connects to the listener at `target`, places the call from `local` and runs it to its end;
    /// shuts `local` down in every case.
    static func place(
        from local: CallEngine, to target: CallAddress, name: String, connectTimeout: Double, call: CallOptions,
        observation: ObservationOptions, until deadline: MediaTime?
    ) async throws {
        let link: TCPSignallingLink
        do {
            link = try await TCPSignallingLink.connect(
                host: target.host, port: target.port, participant: ParticipantID(name),
                timeout: .milliseconds(Int(connectTimeout * 1000)))
        } catch {
            await local.shutDown()
            throw CommandFailure(error.description)
        }
        printStatus("connected to \(link.remoteParticipant) at \(target)", level: .notice)
        let result = await CallSession.run(
            local: local, link: link, role: .placing, options: call, observation: observation, until: deadline)
        try result.get()
    }
}

/// What `listen` and `call` do once the link is up: start the engine, run the call, report, clean up.
enum CallSession {
    /// `waiting`: the listener's control socket, open before the call (then `observation` has no
    /// `--control` of its own); the call's control takes its requests while the call runs.
    static func run(
        local: CallEngine, link: TCPSignallingLink, role: CallSessionRunner.Role, options: CallOptions,
        observation: ObservationOptions, waiting: WaitingSessionControl? = nil, until deadline: MediaTime?
    ) async -> Result<Void, CommandFailure> {
        let runner = CallSessionRunner(engine: local.engine, link: link, role: role)
        runner.service.pushToTalk = options.ptt
        let result: Result<Void, CommandFailure>
        var observers: SessionObservers?
        defer { waiting?.detach() }
        do throws(CommandFailure) {
            let control = CallControl(service: runner.service, remote: runner.remote)
            if let waiting {
                do {
                    try waiting.attach(control)
                } catch {
                    throw CommandFailure("--control: the settings made before the call do not apply: \(error)")
                }
            }
            observers = try await SessionObservers.start(observation, control: control)
            try local.start()
            let summary = try await runner.run(until: deadline)
            await observers?.stop()
            observers = nil
            printStatus(summary.report, level: .notice)
            if let path = observation.summaryJSON {
                SessionSummaryFile(
                    kind: "call", participant: runner.service.engine.participant.rawValue,
                    calling: summary.remote.rawValue,
                    seconds: summary.callSeconds,
                    ending: summary.ending.description, participants: summary.statistics.map { [$0] } ?? []
                ).write(to: path)
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await observers?.stop()
        // Let the goodbye leave before the connection closes.
        await link.close()
        await local.shutDown()
        return result
    }
}
