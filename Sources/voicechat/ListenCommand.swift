import ArgumentParser
import Foundation
import VoiceControl
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceTransport

struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Wait for a call from another host, accept it, and talk until it ends; --accept for more.",
        discussion: """
            Listens for the caller's signalling on TCP --port; voice uses UDP on the same port number \
            (direct), or the signalling connection when UDP cannot pass. The call is accepted as soon as \
            it arrives, so scripts need no input. Runs until the call ends, --duration passes or Ctrl-C, \
            then prints the path used and a summary (rtt, loss, jitter, buffer delay). With --accept N it \
            answers N calls one after the other (0: until --duration or Ctrl-C); a caller who arrives \
            during a call hears that this side is busy. Each of those calls writes files of its own: \
            --output, --record, --stats-json and --summary-json get the call's number before their \
            extension (heard.wav: heard-1.wav, heard-2.wav, ...).

            Examples:
              voicechat listen --port 7300 --name alice
              voicechat listen --port 7300 --name alice \\
                  --input Fixtures/speech-male.wav --output heard.wav --duration 20
              voicechat listen --port 7300 --name alice \\
                  --capture default --playback default --record heard.wav
              voicechat listen --port 7300 --name alice \\
                  --path app --frame-ms 10 --bitrate 24k --ptt
              voicechat listen --port 7300 --name echo --echo --accept 0
            """
    )

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "TCP port for signalling and UDP port for voice, 1…65535 (e.g. --port 7300) (default: 7300).",
            valueName: "port"),
        transform: NumericArgument.port.int)
    var port = 7300

    @Option(
        help:
            "Address to listen on: 0.0.0.0 for every interface, 127.0.0.1 for this host only (e.g. --host 127.0.0.1)."
    )
    var host = "0.0.0.0"

    @Option(help: "This side's participant name, as the caller sees it (e.g. --name alice).")
    var name = "listener"

    // Unconditional: `--accept -1` is a bad count, not a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How many calls to answer, one after the other, before exiting; 0 answers calls until --duration "
                + "or Ctrl-C (e.g. --accept 0) (default: 1).",
            valueName: "calls"),
        transform: NumericArgument.callCount.int)
    var accept = 1

    @Flag(
        help: "Send every caller back what they say, without sound devices: the other end of `voicechat echo-test`.")
    var echo = false

    @OptionGroup var call: CallOptions

    @OptionGroup var observation: ObservationOptions

    func validate() throws {
        try observation.validatePushToTalk(call.ptt)
        do {
            _ = try PeerAddress(host: host, port: port)
        } catch {
            throw ValidationError("--host: \(error).")
        }
        try call.validateWithoutRelay(command: "listen")
        if echo, call.usesAudioEndpoints {
            throw ValidationError(
                "--echo sends callers back what they say and uses no sound device or file; leave out "
                    + "--capture, --playback, --input, --output and --record.")
        }
    }

    func run() async throws {
        StatusOutput.configure(for: observation)
        InterruptSignal.install()
        let deadline = call.deadline(from: MediaTime.monotonicNow())
        let local = try await CallEngine.open(
            options: options(forCall: 1), participant: ParticipantID(name), host: host, udpPort: port, audio: echoLoop()
        )
        let listener: TCPSignallingListener
        do {
            listener = try await TCPSignallingListener.bind(host: host, port: port, participant: ParticipantID(name)) {
                line in
                printStatus(line, level: .warning)
            }
        } catch {
            await local.shutDown()
            throw CommandFailure(error.description)
        }
        // The control socket is open before anyone calls, so that what it sets holds from the first call.
        var waiting: (control: WaitingSessionControl, server: ControlServer)?
        if let path = observation.control {
            let control = WaitingSessionControl(budget: call.engineConfiguration().delayBudget, pushToTalk: call.ptt)
            do {
                waiting = (control, try await ControlServer.start(path: path, control: control))
            } catch {
                await listener.close()
                await local.shutDown()
                throw CommandFailure("--control: \(error)")
            }
        }
        let address = host == "0.0.0.0" ? "port \(port)" : "\(host) port \(port)"
        printStatus(
            "listening on \(address) as \(name) (TCP signalling, UDP voice)"
                + (echo ? "; sending callers back what they say" : ""), level: .notice)
        // The first call's engine is opened before anyone calls, so that a port in use or a device
        // that does not open is said at once; each later call gets a fresh one (the last one shut
        // down with its call).
        var engine: CallEngine? = local
        var answered = 0
        var failed = 0
        var firstFailure: CommandFailure?
        while accept == 0 || answered < accept {
            let link = await Self.waitForCaller(listener, until: deadline)
            guard let link else { break }
            answered += 1
            printStatus("\(link.remoteParticipant) connected" + (accept == 1 ? "" : " (call \(answered))"))
            let callEngine: CallEngine
            if let engine {
                callEngine = engine
            } else {
                do {
                    callEngine = try await CallEngine.open(
                        options: options(forCall: answered), participant: ParticipantID(name), host: host,
                        udpPort: port,
                        audio: echoLoop())
                } catch {
                    await link.close()
                    firstFailure = firstFailure ?? error
                    printStatus("cannot answer \(link.remoteParticipant): \(error)", level: .warning)
                    break
                }
            }
            engine = nil
            // The listener stays open during the call, so that another caller hears that this side is
            // busy rather than that nobody listens.
            var callObservation = accept == 1 ? observation : observation.forCall(answered)
            callObservation.control = nil
            let result = await CallSession.run(
                local: callEngine, link: link, role: .answering, options: options(forCall: answered),
                observation: callObservation, waiting: waiting?.control, until: deadline)
            if case .failure(let error) = result {
                failed += 1
                firstFailure = firstFailure ?? error
                if accept != 1 { printStatus("call \(answered) failed: \(error)", level: .warning) }
            }
            if InterruptSignal.wasReceived || deadline.map({ MediaTime.monotonicNow() >= $0 }) == true { break }
        }
        await listener.close()
        await waiting?.server.close()
        await engine?.shutDown()
        let refusals = listener.refusals
        if refusals.total > 0 {
            printStatus(
                "refused \(refusals.total) connection\(refusals.total == 1 ? "" : "s") before a hello: "
                    + "\(refusals.helloTimeouts) without a hello in time, \(refusals.firstFrameTooLarge) with a first "
                    + "frame too long, \(refusals.addressConnectionLimit) over an address's limit, "
                    + "\(refusals.connectionRateLimited) too fast",
                level: .notice)
        }
        if answered == 0 {
            printStatus(
                InterruptSignal.wasReceived
                    ? "stopped: \(InterruptSignal.ending), no call arrived" : "stopped: no call arrived",
                level: .notice)
        } else if accept != 1 {
            printStatus("stopped after \(answered) call\(answered == 1 ? "" : "s")", level: .notice)
        }
        if let failure = Self.failure(
            interrupted: InterruptSignal.wasReceived, accept: accept, answered: answered, failed: failed,
            first: firstFailure)
        {
            throw failure
        }
    }

    /// What the listener ends with once it stops: nil after Ctrl-C or SIGTERM (it exits with the
    /// signal's status) or when no call failed; the one call's failure for `--accept 1`; else how
    /// many failed, each of which was said when it ended.
    static func failure(interrupted: Bool, accept: Int, answered: Int, failed: Int, first: CommandFailure?)
        -> CommandFailure?
    {
        guard !interrupted, let first else { return nil }
        if accept == 1 { return first }
        return CommandFailure("\(failed) of \(answered) call\(answered == 1 ? "" : "s") failed (each said above)")
    }

    /// The options of call `number`: with `--accept` other than 1, its files are numbered.
    private func options(forCall number: Int) -> CallOptions {
        accept == 1 ? call : call.forCall(number)
    }

    /// `--echo`'s device: a fresh loop for each call's engine.
    private func echoLoop() -> (input: any AudioInput, output: any AudioOutput)? {
        guard echo else { return nil }
        let loop = EchoLoopback()
        return (loop, loop)
    }

    /// The first caller's link, or nil once the deadline passes or Ctrl-C arrives.
    private static func waitForCaller(_ listener: TCPSignallingListener, until deadline: MediaTime?) async
        -> TCPSignallingLink?
    {
        await withTaskGroup(of: TCPSignallingLink?.self) { group in
            group.addTask { try? await listener.accept() }
            group.addTask {
                while !InterruptSignal.wasReceived && deadline.map({ MediaTime.monotonicNow() < $0 }) != false {
                    try? await Task.sleep(for: .milliseconds(50))
                    if Task.isCancelled { break }
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension NumericArgument {
    /// How many calls `listen` answers; 0 for no limit.
    static let callCount = NumericArgument(0...1_000_000, unit: "calls")
}
