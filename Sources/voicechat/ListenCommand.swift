import ArgumentParser
import Foundation
import VoiceCore
import VoiceEngine
import VoiceSignalling
import VoiceTransport

struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Wait for one call from another host, accept it, and talk until it ends.",
        discussion: """
            Listens for the caller's signalling on TCP --port; voice uses UDP on the same port number \
            (direct), or the signalling connection when UDP cannot pass. The call is accepted as soon as \
            it arrives, so scripts need no input. Runs until the call ends, --duration passes or Ctrl-C, \
            then prints the path used and a summary (rtt, loss, jitter, buffer delay).

            Examples:
              voicechat listen --port 7300 --name alice
              voicechat listen --port 7300 --name alice \\
                  --input Fixtures/speech-male.wav --output heard.wav --duration 20
              voicechat listen --port 7300 --name alice \\
                  --capture default --playback default --record heard.wav
              voicechat listen --port 7300 --name alice \\
                  --path app --frame-ms 10 --bitrate 24k --ptt
            """
    )

    @Option(help: "TCP port for signalling and UDP port for voice (e.g. --port 7300).")
    var port = 7300

    @Option(
        help:
            "Address to listen on: 0.0.0.0 for every interface, 127.0.0.1 for this host only (e.g. --host 127.0.0.1)."
    )
    var host = "0.0.0.0"

    @Option(help: "This side's participant name, as the caller sees it (e.g. --name alice).")
    var name = "listener"

    @OptionGroup var call: CallOptions

    @OptionGroup var observation: ObservationOptions

    func validate() throws {
        try observation.validatePushToTalk(call.ptt)
        guard (1...65_535).contains(port) else {
            throw ValidationError("--port must be a number from 1 to 65535, not \(port).")
        }
        do {
            _ = try PeerAddress(host: host, port: port)
        } catch {
            throw ValidationError("--host: \(error).")
        }
        try call.validateWithoutRelay(command: "listen")
    }

    func run() async throws {
        StatusOutput.keepStandardOutputFor(observation)
        InterruptSignal.install()
        let deadline = call.deadline(from: MediaTime.monotonicNow())
        let local = try await CallEngine.open(options: call, participant: name, host: host, udpPort: port)
        let listener: TCPSignallingListener
        do {
            listener = try await TCPSignallingListener.bind(host: host, port: port, participant: name)
        } catch {
            await local.shutDown()
            throw CommandFailure(error.description)
        }
        let address = host == "0.0.0.0" ? "port \(port)" : "\(host) port \(port)"
        printStatus("listening on \(address) as \(name) (TCP signalling, UDP voice)")
        let link = await Self.waitForCaller(listener, until: deadline)
        guard let link else {
            await listener.close()
            await local.shutDown()
            printStatus(
                InterruptSignal.wasReceived ? "stopped: interrupted, no call arrived" : "stopped: no call arrived")
            return
        }
        printStatus("\(link.remoteParticipant) connected")
        // The listener stays open during the call, so that another caller hears that this side is busy
        // rather than that nobody listens.
        let result = await CallSession.run(
            local: local, link: link, role: .answering, options: call, observation: observation, until: deadline)
        await listener.close()
        try result.get()
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
