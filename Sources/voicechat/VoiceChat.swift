import ArgumentParser

@main
struct VoiceChat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicechat",
        abstract: "Real-time voice chat for games: calls between hosts, matches through a relay, and tools.",
        discussion: """
            Start with `voicechat demo`: a relay and two players on this host. Between two hosts: \
            `voicechat listen` on one and `voicechat call HOST:PORT` on the other; for a match, \
            `voicechat relay` somewhere both reach, `voicechat token` per player, and `voicechat join`. \
            Every command that records or plays takes ALSA device names (--capture, --playback; \
            default "default") or WAV files instead (--input, --output).
            """,
        version: VersionText.description,
        subcommands: [
            DemoCommand.self, ListenCommand.self, CallCommand.self, EchoTestCommand.self, RelayCommand.self,
            RelayAdminCommand.self, TokenCommand.self,
            JoinCommand.self, DevicesCommand.self, LoopbackCommand.self, SimulateCommand.self,
        ]
    )

    /// Runs the command line. `help NAME` for a command that does not exist is a usage error
    /// (exit 64, naming the commands there are): the parser alone prints the overview and exits 0.
    /// A session Ctrl-C or SIGTERM ended exits 130 or 143 once it has finished cleanly.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        if arguments.first == "help", let name = arguments.dropFirst().first, !name.hasPrefix("-"),
            !names.contains(name)
        {
            exit(
                withError: ValidationError(
                    "there is no command \"\(name)\"; the commands are \(names.dropLast().joined(separator: ", "))"))
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            if let status = InterruptSignal.exitStatus { exit(withError: ExitCode(status)) }
        } catch {
            exit(withError: error)
        }
    }
}
