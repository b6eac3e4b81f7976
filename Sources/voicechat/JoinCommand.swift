import ArgumentParser
import VoiceControl
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceRelay
import VoiceWire

/// Joins a match through a relay: the relay carries the match's signalling and roster, and voice
/// takes the best path to each player (direct UDP, else the relay over UDP, else over TCP).
struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a match through a relay and talk in its named voice channels.",
        discussion: """
            The token comes from the game server (or `voicechat token` with the relay's secret) and \
            admits one participant to one match. Every player who starts a channel of the same name \
            hears the others in it; the microphone goes to the --active channel. Runs until Ctrl-C, \
            q in the console, or --duration, then prints a line per player (path, rtt, loss, jitter, \
            buffer delay).

            Examples:
              voicechat join --relay 192.0.2.9:7700 --match arena-7 --name alice \\
                  --token "$TOKEN" --channel team
              voicechat join --relay 127.0.0.1:7700 --match arena-7 --name bob \\
                  --token "$TOKEN" --channel team --channel all --active all \\
                  --input Fixtures/speech-male.wav --output heard.wav --duration 20
              voicechat join --relay 127.0.0.1:7700 --match m --name carol \\
                  --token "$TOKEN" --channel all \\
                  --path relay-tcp --control /tmp/carol.sock
            """
    )

    @Option(
        help: ArgumentHelp(
            "The relay, as HOST:PORT (e.g. 192.0.2.9:7700); for a cluster of relays, several, comma-separated: "
                + "the first is joined, the others when it does not answer or goes away.", valueName: "host:port"))
    var relay: String

    @Option(help: "The match to join (must be the token's).")
    var match: String

    @Option(help: "This player's participant ID (must be the token's).")
    var name: String

    @Option(help: "Join token from the game server or `voicechat token`.")
    var token: String

    @Option(
        name: .customLong("channel"),
        help: ArgumentHelp(
            "A voice channel to start; repeat for several (e.g. --channel team --channel all).",
            valueName: "name"))
    var channels: [String] = []

    @Option(
        help: ArgumentHelp(
            "The channel the microphone talks in (default: the first --channel).",
            valueName: "name"))
    var active: String?

    @Flag(
        name: .customLong("relay-primary"),
        help: "Send voice through the relay even when players could reach each other directly (hides addresses).")
    var relayPrimary = false

    @OptionGroup var call: CallOptions

    @OptionGroup var observation: ObservationOptions

    func validate() throws {
        try observation.validatePushToTalk(call.ptt)
        guard !channels.isEmpty else {
            throw ValidationError("give at least one --channel to talk and listen in (e.g. --channel team).")
        }
        guard Set(channels).count == channels.count else {
            throw ValidationError("each --channel may be given once.")
        }
        if let active, !channels.contains(active) {
            throw ValidationError(
                "--active \(active) is not one of the --channel names (\(channels.joined(separator: ", "))).")
        }
        guard call.path != .app else {
            throw ValidationError(
                "--path app needs an app channel, and join has none; use auto, direct, relay or relay-tcp.")
        }
        _ = try relays()
    }

    /// The relays of --relay, in order.
    private func relays() throws -> [CallAddress] {
        try relay.split(separator: ",", omittingEmptySubsequences: false).map { text throws(ValidationError) in
            do throws(CommandFailure) {
                return try CallAddress(parsing: String(text))
            } catch {
                throw ValidationError("--relay: \(error.description)")
            }
        }
    }

    func run() async throws {
        StatusOutput.configure(for: observation)
        InterruptSignal.install()
        let deadline = call.deadline(from: MediaTime.monotonicNow())
        let relays = try relays()
        let address = relays[0]
        try checkToken()
        var options = call.path.relayOptions(
            host: address.host, port: address.port, token: token, primary: relayPrimary)
        options.otherRelays = relays.dropFirst().map(\.description)
        let local = try await CallEngine.open(options: call, participant: ParticipantID(name), udpPort: 0)
        let result = await MatchSession.run(
            local: local, relay: address, options: options, match: match, channels: channels,
            active: active ?? channels[0], call: call, observation: observation, until: deadline)
        try result.get()
    }

    /// A token for another match or player would be refused by the relay; say so before connecting.
    private func checkToken() throws(CommandFailure) {
        let parsed: RelayToken
        do {
            parsed = try RelayToken(parsing: token)
        } catch {
            throw CommandFailure("--token is not a relay token (\(error)); copy it whole from `voicechat token`")
        }
        guard parsed.match == match else {
            throw CommandFailure(
                "--token admits to match \"\(parsed.match)\", not \"\(match)\"; ask for a token for it")
        }
        guard parsed.participant == name else {
            throw CommandFailure(
                "--token is for participant \"\(parsed.participant)\", not \"\(name)\"; use --name \(parsed.participant) "
                    + "or ask for a token for \(name)")
        }
    }
}
