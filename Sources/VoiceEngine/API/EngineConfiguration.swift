import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// How an engine sounds, how long it waits, and which paths it may use.
public struct EngineConfiguration: Sendable, Hashable {
    public var frameDuration: FrameDuration
    /// Opus bitrate of the voice this engine sends, bit/s.
    public var bitrate: Int
    /// Opus encoder complexity, 0…10.
    public var complexity: Int
    /// The most mouth-to-ear delay the engine may add, ms (see `DelayBudget`); changeable while
    /// running with `VoiceEngine.setMaximumDelay(milliseconds:)`.
    public var maximumDelayMilliseconds: Double
    /// How received streams buffer; its frame length is always this configuration's
    /// (`receiveConfiguration(budget:)`), whatever it says itself.
    public var jitterBuffer: JitterBufferConfiguration
    public var paths: PathSelectorConfiguration
    /// Restricts every peer to one kind of path (the CLI's `--path`); nil chooses automatically.
    public var forcedPath: RealTimePathKind?
    /// How long an invitation waits for an answer before the call does not start.
    public var invitationTimeoutSeconds: Double
    /// How long an accepted call waits for a real-time path before it does not start.
    public var pathTimeoutSeconds: Double
    /// How often a listener tells each sender what it measured; sooner after loss the sender's
    /// protection could not repair (see `ReportSchedule`).
    public var reportIntervalMilliseconds: Double
    /// How long a sender keeps sealing under the old key after distributing a new one, at most.
    public var rekeyGraceSeconds: Double
    /// Noise suppression, gain control and the speech gate's threshold at the start; changeable
    /// while running with `VoiceEngine.setSpeechProcessing(_:)`.
    public var speechProcessing: SpeechProcessing
    /// Whether the microphone's frames have the speaker's echo removed (`CaptureEchoCanceller`).
    public var echoCancellation: EchoCancellationMode
    /// The mix's channels when the engine has no speaker of its own (an app that ticks it): 1,
    /// or 2 for interleaved stereo, where positional channels are panned. With a speaker, its
    /// channel count decides.
    public var outputChannels = 1

    public init(
        frameDuration: FrameDuration = VoiceDefaults.frameDuration,
        bitrate: Int = VoiceDefaults.bitrate,
        complexity: Int = VoiceDefaults.complexity,
        maximumDelayMilliseconds: Double? = nil,
        jitterBuffer: JitterBufferConfiguration? = nil,
        paths: PathSelectorConfiguration = PathSelectorConfiguration(),
        forcedPath: RealTimePathKind? = nil,
        invitationTimeoutSeconds: Double = 30,
        pathTimeoutSeconds: Double = 10,
        reportIntervalMilliseconds: Double = 1000,
        rekeyGraceSeconds: Double = 2,
        speechProcessing: SpeechProcessing = SpeechProcessing(),
        echoCancellation: EchoCancellationMode = .automatic
    ) {
        self.frameDuration = frameDuration
        self.bitrate = bitrate
        self.complexity = complexity
        self.maximumDelayMilliseconds =
            maximumDelayMilliseconds ?? VoiceDefaults.maximumDelayMilliseconds(frameDuration: frameDuration)
        self.jitterBuffer = jitterBuffer ?? JitterBufferConfiguration(frameDuration: frameDuration)
        self.paths = paths
        self.forcedPath = forcedPath
        self.invitationTimeoutSeconds = invitationTimeoutSeconds
        self.pathTimeoutSeconds = pathTimeoutSeconds
        self.reportIntervalMilliseconds = reportIntervalMilliseconds
        self.rekeyGraceSeconds = rekeyGraceSeconds
        self.speechProcessing = speechProcessing
        self.echoCancellation = echoCancellation
    }

    /// The delay budget these settings describe.
    public var delayBudget: DelayBudget {
        DelayBudget(maximumMilliseconds: maximumDelayMilliseconds, frameDuration: frameDuration)
    }

    /// How a new receive stream buffers under `budget` (the budget in force, which the app may
    /// have changed since): the jitter buffer's settings at this configuration's frame length,
    /// the target held within the budget's buffering share.
    public func receiveConfiguration(budget: DelayBudget) -> JitterBufferConfiguration {
        var buffer = jitterBuffer
        buffer.frameDuration = frameDuration
        buffer.bufferingMilliseconds = budget.bufferingMilliseconds
        return buffer
    }

    /// How `sender` sends `channel` under `budget`, at this configuration's frame length, bitrate
    /// and complexity, with `speechProcessing` (the settings in force).
    public func sendConfiguration(
        sender: MediaID, channel: ChannelNumber, budget: DelayBudget, speechProcessing: SpeechProcessing
    ) -> SendConfiguration {
        var send = SendConfiguration(
            sender: sender, channel: channel, frameDuration: frameDuration, bitrate: bitrate, complexity: complexity,
            delayBudget: budget)
        send.speechProcessing = speechProcessing
        return send
    }
}

/// When the engine cancels the speaker's echo in what the microphone captures.
public enum EchoCancellationMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// When both the microphone and the speaker are real-time devices: a speaker and a microphone
    /// in the same room. Files and apps that tick the engine themselves have no echo to cancel
    /// unless they say so.
    case automatic
    case on
    case off

    /// Whether the canceller runs with this input and output.
    public func isOn(input: (any AudioInput)?, output: (any AudioOutput)?) -> Bool {
        switch self {
        case .on: true
        case .off: false
        case .automatic: input?.pacing == .realTime && output?.pacing == .realTime
        }
    }
}
