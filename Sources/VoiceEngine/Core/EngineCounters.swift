import VoiceCore

/// Counters of everything the engine refused, for statistics and tests.
public struct EngineCounters: Sendable, Hashable, Codable {
    /// Signalling messages refused (malformed, unknown call, wrong state, …).
    public var signallingRejected = 0
    /// Datagrams that were not a sealed envelope of the current format.
    public var malformedDatagrams = 0
    /// Envelopes that failed to open: forged, tampered, truncated, or under an unknown key.
    public var unopenedDatagrams = 0
    /// Envelopes refused as replays.
    public var replayedDatagrams = 0
    /// Voice for a channel this participant has not started.
    public var voiceForStoppedChannels = 0
    /// Voice frames not sent to a peer on a direct or app-carried path: it stands out of the
    /// positional channel's range.
    public var voiceOutOfRange = 0
    /// Datagrams sent, by path kind.
    public var datagramsSent: [String: Int] = [:]
    /// Datagrams dropped because the engine thread had not yet taken the many received before them.
    public var datagramsDroppedReceiving = 0
    /// Datagrams dropped because the courier had not yet sent the many queued before them.
    public var datagramsDroppedSending = 0
    /// Audio the engine thread dropped to catch up with its devices after a stall.
    public var deviceCatchUp = DeviceCatchUp()

    /// What keeping the devices' delay bounded cost.
    public struct DeviceCatchUp: Sendable, Hashable, Codable {
        /// Captured samples dropped because more waited behind the engine than its backlog holds.
        public var captureSamplesDropped = 0
        /// Mixed frames not queued for playback because the speaker's queue had stood above a frame
        /// for a whole window.
        public var playbackFramesSkipped = 0
        /// Of `playbackFramesSkipped`, those skipped out of sound because no quiet frame came in time.
        public var playbackLoudFramesSkipped = 0
        /// Frames of time the microphone lost (never delivered), skipped on the send timeline.
        public var captureFramesLost = 0
        /// How long before a real-time speaker takes each frame the engine mixes it, in ms: 2 (half
        /// a period for shorter periods) at first, more after the speaker ran dry, up to a period
        /// less a millisecond; nil when the engine does not follow a speaker's rhythm.
        public var playoutLeadMilliseconds: Double?
        /// The speaker's frames of silence played because the engine had not filled its queue in
        /// time (each run dry moves everything after it later by a device period), and its xruns.
        public var speakerStarvedFrames = 0
        public var speakerXruns = 0
        /// The microphone's frames dropped because the engine had not read its queue in time, and
        /// its xruns.
        public var microphoneDroppedFrames = 0
        public var microphoneXruns = 0
        /// Engine frames left out of the mix to take back what the speaker's dry runs cost.
        public var playbackSamplesReclaimed = 0
        /// The engine thread's latest wake-up since it started, and the longest it spent running
        /// calls and signalling in one turn, in ms: a speaker that ran dry while either was more
        /// than the playout lead was starved by the scheduler or by the calls, not by the mix.
        /// nil while no engine thread runs.
        public var engineThreadLatestWakeMilliseconds: Double?
        public var engineCommandLongestRunMilliseconds: Double?

        public init(
            captureSamplesDropped: Int = 0, playbackFramesSkipped: Int = 0, playbackLoudFramesSkipped: Int = 0,
            captureFramesLost: Int = 0, playoutLeadMilliseconds: Double? = nil,
            speaker: AudioDeviceStatistics? = nil, microphone: AudioDeviceStatistics? = nil,
            playbackSamplesReclaimed: Int = 0
        ) {
            self.playbackSamplesReclaimed = playbackSamplesReclaimed
            self.captureSamplesDropped = captureSamplesDropped
            self.playbackFramesSkipped = playbackFramesSkipped
            self.playbackLoudFramesSkipped = playbackLoudFramesSkipped
            self.captureFramesLost = captureFramesLost
            self.playoutLeadMilliseconds = playoutLeadMilliseconds
            speakerStarvedFrames = speaker?.ringStarvedFrames ?? 0
            speakerXruns = speaker?.xruns ?? 0
            microphoneDroppedFrames = microphone?.ringStarvedFrames ?? 0
            microphoneXruns = microphone?.xruns ?? 0
        }
    }

    public init() {}
}
