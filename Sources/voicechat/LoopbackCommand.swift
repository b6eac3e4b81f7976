import ArgumentParser
import VoiceCodec
import VoiceCore
import VoiceDevices

#if canImport(Glibc)
    import Glibc
#endif

struct LoopbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loopback",
        abstract: "Capture, Opus-encode, decode and play back on this machine, with live meters.",
        discussion: """
            Hears yourself through the whole codec path. With files on both sides it runs as fast as \
            it can; with a device on either side the device sets the pace.

            Examples:
              voicechat loopback --input Fixtures/speech-male.wav --output heard.wav
              voicechat loopback --capture default --playback default --frame-ms 10 --fec
            """
    )

    @OptionGroup var endpoints: AudioEndpointOptions
    @OptionGroup var codec: CodecOptions

    // Unconditional: `--duration -1` is a bad number of seconds, not a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop after this many seconds (default: at the end of --input, or on Ctrl-C).", valueName: "seconds"),
        transform: NumericArgument.duration.double)
    var duration: Double?

    func validate() throws {
        guard endpoints.speakerChannels == 1 else {
            throw ValidationError(
                "loopback plays mono: leave --speaker-channels at 1 (stereo is for matches' positional channels).")
        }
    }

    func run() throws {
        InterruptSignal.install()
        var pipeline: LoopbackPipeline
        do {
            pipeline = try LoopbackPipeline(configuration: codec.encoderConfiguration())
        } catch {
            throw CommandFailure("cannot set up the codec: \(error)")
        }
        let input: any AudioInput
        let output: any AudioOutput
        do {
            input = try endpoints.openInput()
            output = try endpoints.openOutput()
        } catch {
            throw CommandFailure(error.description)
        }
        let display = MeterDisplay(interactive: isatty(STDOUT_FILENO) == 1)
        print(
            "loopback: \(input.name) → Opus \(codec.frameDuration), \(codec.bitrate) bit/s, complexity \(codec.complexity)"
                + "\(codec.fec ? ", FEC" : "") → \(output.name)")
        let runner = LoopbackRunner(input: input, output: output, maximumSeconds: duration)
        let summary: LoopbackSummary
        do {
            summary = try runner.run(pipeline: &pipeline, display: display)
        } catch {
            throw CommandFailure("\(error)")
        }
        display.finish()
        print(summary.report(input: input.statistics, output: output.statistics))
    }
}
