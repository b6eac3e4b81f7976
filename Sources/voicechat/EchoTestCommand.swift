import ArgumentParser
import Foundation
import VoiceCore
import VoiceEngine

/// `voicechat echo-test HOST:PORT`: a call to `voicechat listen --echo`, which sends back what it
/// hears, so that you hear yourself through the real path; at the end it says how long your voice
/// took there and back, measured from what the microphone gave the engine to what the engine gave
/// the speaker.
struct EchoTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo-test",
        abstract: "Hear yourself through the real path to an echoing listener, and how long it took.",
        discussion: """
            Calls HOST:PORT, where `voicechat listen --echo` runs, and plays back what it returns; say \
            something and hear it come back. At the end it prints the measured delay there and back \
            (from the microphone to the speaker, through the network, both jitter buffers and the \
            codec; your devices' own buffers come on top) and the path's summary.

            Examples:
              voicechat listen --port 7300 --name echo --echo --accept 0  # far host
              voicechat echo-test 192.0.2.7:7300 --duration 15
              voicechat echo-test 192.0.2.7:7300 --input Fixtures/speech-male.wav \\
                  --output back.wav --duration 10
            """
    )

    @Argument(help: ArgumentHelp("Where `voicechat listen --echo` runs (e.g. 192.0.2.7:7300).", valueName: "host:port"))
    var address: String

    @Option(help: "This side's participant name, as the listener sees it.")
    var name = "echo-test"

    @Option(
        name: .customLong("connect-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for the connection and the hello, \(NumericArgument.connectTimeout) "
                + "(default: 5).", valueName: "seconds"),
        transform: NumericArgument.connectTimeout.double)
    var connectTimeout = 5.0

    @OptionGroup var call: CallOptions

    @OptionGroup var observation: ObservationOptions

    /// How much of the session the delay is measured over, at most.
    static let measuredSeconds = 600

    func validate() throws {
        try observation.validatePushToTalk(call.ptt)
        try call.validateWithoutRelay(command: "echo-test")
        guard call.endpoints.speakerChannels == 1 else {
            throw ValidationError("echo-test measures a mono speaker: leave --speaker-channels at 1.")
        }
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
        let (device, speaker) = try call.openAudio()
        let input = EnvelopeInput(device, envelope: LevelEnvelope(seconds: Self.measuredSeconds))
        let output = EnvelopeOutput(speaker, envelope: LevelEnvelope(seconds: Self.measuredSeconds))
        let local = try await CallEngine.open(
            options: call, participant: ParticipantID(name), udpPort: 0, audio: (input, output))
        try await CallCommand.place(
            from: local, to: target, name: name, connectTimeout: connectTimeout, call: call, observation: observation,
            until: deadline)
        guard let heard = Self.report(captured: input.envelope, played: output.envelope) else {
            throw CommandFailure(
                "echo test failed: your voice did not come back recognisably; check that the other side runs "
                    + "`voicechat listen --echo`, and speak for a few seconds")
        }
        printStatus(heard, level: .notice)
    }

    /// What the test found, or nil when the voice did not come back.
    static func report(captured: LevelEnvelope, played: LevelEnvelope) -> String? {
        guard let capturedFrom = captured.startedAt, let playedFrom = played.startedAt,
            let lag = EnvelopeLag.measure(
                captured: captured.values, played: played.values,
                startOffsetMilliseconds: (playedFrom - capturedFrom).milliseconds),
            lag.correlation >= 0.5
        else { return nil }
        return String(
            format: "echo test: you heard yourself %.0f ms after you spoke (microphone to speaker, there and back; "
                + "your devices' buffers come on top; match %.2f)", lag.milliseconds, lag.correlation)
    }
}
