import ArgumentParser
import VoiceCodec
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceTransport

/// The options every voice session command shares (listen, call, join): audio endpoints, what to
/// record, which path voice takes, the codec's frame length and bitrate, push-to-talk, and how long
/// to run.
struct CallOptions: ParsableArguments, FrameLengthOption {
    @OptionGroup var endpoints: AudioEndpointOptions

    @Option(
        help: ArgumentHelp(
            "Also write what this side hears to a WAV file, while playing it (e.g. --record heard.wav).",
            valueName: "file.wav"))
    var record: String?

    // Parsed by a transform, so that the help lists what each command takes, not every path.
    @Option(
        help: ArgumentHelp(
            "Real-time path for voice (default: auto). listen, call and echo-test: auto (direct UDP, else over the "
                + "signalling connection), direct or app. join: auto (direct UDP, else through the relay), direct, "
                + "relay or relay-tcp (e.g. --path app).",
            valueName: "path"),
        transform: CallPathChoice.init(argument:))
    var path: CallPathChoice = .auto

    @Option(
        help: ArgumentHelp(
            "Offer only this address for direct UDP, with a numeric host: a port forwarded to this host, or a "
                + "NAT's public address; repeat for several (e.g. --advertise 203.0.113.5:7300).",
            valueName: "host:port"))
    var advertise: [String] = []

    @Option(
        name: .customLong("frame-ms"), parsing: .unconditional,
        help: ArgumentHelp(
            "Frame length in ms: 5, 10 or 20, the lengths a call's delay budget holds (40 and 60 add too much "
                + "delay; 2.5 spends more on headers than it saves) (e.g. --frame-ms 10) "
                + "(default: \(VoiceDefaults.frameDuration.milliseconds.formatted)).", valueName: "ms"),
        transform: NumericArgument.frameLength.double)
    var frameMilliseconds = VoiceDefaults.frameDuration.milliseconds

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Opus bitrate in bit/s, \(Bitrate.allowed); 'k' means thousands (e.g. --bitrate 24k) "
                + "(default: \(Bitrate.shipped)).", valueName: "bitrate"),
        transform: Bitrate.init(argument:))
    var bitrate = Bitrate.shipped

    @OptionGroup var tuning: EngineTuningOptions

    @Flag(help: "Push-to-talk: the microphone sends only while the talk key is down (e.g. --ptt).")
    var ptt = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop after this many seconds from the start and exit 0 (e.g. --duration 30); default: until the "
                + "call ends, Ctrl-C, or half a second after the --input file ends.",
            valueName: "seconds"),
        transform: NumericArgument.duration.double)
    var duration: Double?

    /// The frame lengths a call may use: long enough to be efficient, short enough for conversation.
    static let frameLengths: [Double] = [5, 10, 20]

    func validate() throws {
        guard Self.frameLengths.contains(frameMilliseconds) else {
            throw ValidationError("--frame-ms must be 5, 10 or 20 for a call, not \(frameMilliseconds).")
        }
        guard endpoints.deviceChannels == 1 else {
            throw ValidationError("calls use mono devices: leave --device-channels at 1 (ALSA's plug converts).")
        }
        if let record, record == endpoints.output {
            throw ValidationError("--record and --output name the same file; give --record another name.")
        }
        _ = try advertisedCandidates()
    }

    /// Whether a sound device or a file was named (--capture, --playback, --input, --output, --record).
    var usesAudioEndpoints: Bool {
        endpoints.capture != nil || endpoints.playback != nil || endpoints.input != nil || endpoints.output != nil
            || record != nil
    }

    /// The addresses `--advertise` offers instead of this host's interfaces; nil without it.
    func advertisedCandidates() throws(ValidationError) -> [PeerAddress]? {
        guard !advertise.isEmpty else { return nil }
        var candidates: [PeerAddress] = []
        for text in advertise {
            let address: CallAddress
            do {
                address = try CallAddress(parsing: text)
            } catch {
                throw ValidationError("--advertise: \(error.description)")
            }
            do {
                candidates.append(try PeerAddress(host: address.host, port: address.port))
            } catch {
                throw ValidationError(
                    "--advertise \"\(text)\": the host must be a numeric IPv4 or IPv6 address (the peer sends there "
                        + "as it is), e.g. 203.0.113.5:7300")
            }
        }
        return candidates
    }

    /// For commands that connect two hosts directly (listen, call): a relay path needs a relay.
    func validateWithoutRelay(command: String) throws {
        guard !path.needsRelay else {
            throw ValidationError(
                "--path \(path.rawValue) needs a relay, which `\(command)` does not use: run "
                    + "`voicechat join --relay HOST:PORT ...` instead, or use --path auto, direct or app.")
        }
    }

    /// The engine settings these options describe.
    /// When a run that began at `start` must end, for `--duration`; nil: when the session does.
    func deadline(from start: MediaTime) -> MediaTime? {
        duration.map { start + MediaTime.milliseconds($0 * 1000) }
    }

    func engineConfiguration() -> EngineConfiguration {
        EngineConfiguration(
            frameDuration: frameDuration, bitrate: bitrate.bitsPerSecond, complexity: tuning.complexity,
            maximumDelayMilliseconds: tuning.maximumDelayMilliseconds, forcedPath: path.forcedPath,
            invitationTimeoutSeconds: 20, pathTimeoutSeconds: 10, speechProcessing: tuning.speechProcessing,
            echoCancellation: tuning.echoCancellationMode)
    }

    /// Opens the microphone and the speaker (with the recorder behind it, if asked). A failure says
    /// which device or file and what to do.
    func openAudio() throws(CommandFailure) -> (input: any AudioInput, output: any AudioOutput) {
        let input: any AudioInput
        var output: any AudioOutput
        do {
            input = try endpoints.openInput()
            output = try endpoints.openOutput()
            if let record {
                let recorder = try WAVFileOutput(
                    path: record, channels: output.format.channels, pacing: .onDemand, writesInBackground: true)
                output = RecordingOutput(playing: output, recording: recorder)
            }
        } catch {
            throw CommandFailure(error.description)
        }
        return (input, output)
    }
}
