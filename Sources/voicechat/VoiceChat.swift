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
        version: "0.1.0",
        subcommands: [
            DemoCommand.self, ListenCommand.self, CallCommand.self, RelayCommand.self, TokenCommand.self,
            JoinCommand.self, DevicesCommand.self, LoopbackCommand.self, SimulateCommand.self,
        ]
    )
}
