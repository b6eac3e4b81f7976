import ArgumentParser

@main
struct VoiceChat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicechat",
        abstract: "Real-time voice chat for games: devices, codec loopback, calls.",
        discussion: """
            Every command that records or plays takes ALSA device names (--capture, --playback; \
            default "default") or WAV files instead (--input, --output).
            """,
        version: "0.1.0",
        subcommands: [
            DevicesCommand.self, LoopbackCommand.self, SimulateCommand.self, ListenCommand.self, CallCommand.self,
            RelayCommand.self, TokenCommand.self, ObserveDemoCommand.self,
        ]
    )
}
