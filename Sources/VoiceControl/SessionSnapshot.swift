import VoiceCore
import VoiceEngine
import VoiceMedia

/// What every observer reads: a point-in-time view of one participant's session (a 1:1 call or a
/// match). Levels are dBFS floored at −120 (silence), so the JSON form never holds infinities.
public struct SessionSnapshot: Sendable, Codable, Hashable {
    /// Seconds since the control was created (the session's start, as its observers see it).
    public var time: Double
    /// The microphone's level, RMS with meter ballistics.
    public var inputLevelDB: Float
    /// The level of the mix played to the speaker.
    public var outputLevelDB: Float
    public var microphoneMuted: Bool
    /// Whether the microphone sends only while the talk key is down.
    public var pushToTalk: Bool
    /// Whether the talk key is down.
    public var talking: Bool
    /// Volume of the call's remote participant, 0…1; nil in a match (each channel has its own).
    public var volume: Float?
    /// The match's voice channels this control drives; empty for a 1:1 call.
    public var channels: [ChannelSnapshot]
    /// Every remote participant, sorted by ID.
    public var participants: [ParticipantSnapshot]
    /// The delay budget in force and how it is shared out; nil where no engine stands behind.
    public var delayBudget: DelayBudgetSnapshot?
    /// Noise suppression, gain control and the speech gate's threshold; nil where no engine
    /// stands behind.
    public var speechProcessing: SpeechProcessing?
    /// What the devices did that moved or cut the audio: the speaker running dry, the microphone
    /// dropping or losing frames, the engine's playout lead; nil where no engine stands behind.
    public var devices: EngineCounters.DeviceCatchUp?
    /// What the echo canceller did and the echo return loss enhancement it measures; nil when it
    /// is off or no engine stands behind.
    public var echoCancellation: CaptureEchoCanceller.Statistics?

    public init(
        time: Double, inputLevelDB: Float, outputLevelDB: Float, microphoneMuted: Bool, pushToTalk: Bool,
        talking: Bool, volume: Float? = nil, channels: [ChannelSnapshot] = [], participants: [ParticipantSnapshot] = [],
        delayBudget: DelayBudgetSnapshot? = nil
    ) {
        self.time = time
        self.inputLevelDB = inputLevelDB
        self.outputLevelDB = outputLevelDB
        self.microphoneMuted = microphoneMuted
        self.pushToTalk = pushToTalk
        self.talking = talking
        self.volume = volume
        self.channels = channels
        self.participants = participants
        self.delayBudget = delayBudget
    }
}

/// One voice channel of a match.
public struct ChannelSnapshot: Sendable, Codable, Hashable {
    public var name: String
    /// This participant hears the channel.
    public var started: Bool
    /// The channel owns the microphone.
    public var active: Bool
    /// 0…1.
    public var volume: Float
    /// Players muted in this channel, sorted.
    public var mutedPlayers: [ParticipantID]
    /// Every other player's last reported state in this channel.
    public var playerStates: [String: String]

    public init(
        name: String, started: Bool, active: Bool, volume: Float, mutedPlayers: [ParticipantID] = [],
        playerStates: [String: String] = [:]
    ) {
        self.name = name
        self.started = started
        self.active = active
        self.volume = volume
        self.mutedPlayers = mutedPlayers
        self.playerStates = playerStates
    }
}

/// One remote participant: what arrives from them and the path to them. When they are heard in
/// several channels, the level is the loudest stream's and the counts add up over the streams.
public struct ParticipantSnapshot: Sendable, Codable, Hashable {
    public var participant: ParticipantID
    public var levelDB: Float
    public var speaking: Bool
    /// Muted in every channel the control drives (a match), or through the control (a call).
    public var muted: Bool
    /// Their own volume, 0…2 (1: as they sent it), in every channel.
    public var volume: Float = 1
    /// "direct", "app", "relay" or "relay-tcp"; nil while no path works.
    public var path: String?
    public var rttMilliseconds: Double?
    /// Frames lost (not recovered) over frames expected, since their stream began, 0…1.
    public var lossFraction: Double
    /// RFC 3550 interarrival jitter.
    public var jitterMilliseconds: Double
    /// How long the frame just played waited in the jitter buffer.
    public var bufferDelayMilliseconds: Double
    /// The delay the jitter buffer steers toward.
    public var targetDelayMilliseconds: Double
    /// Of the target, what repairing loss from later packets' copies or FEC holds.
    public var repairDelayMilliseconds: Double = 0
    /// What sets the target: "jitter" (the arrival-delay percentile and a frame of margin),
    /// "repair" (besides, the frames the sender's protection reaches back) or "budget" (the
    /// delay budget's ceiling, below what jitter and repair would want).
    public var delayHeldFor: String = "jitter"
    public var packetsReceived: Int
    public var packetsLost: Int
    /// Lost frames rebuilt from in-band FEC or redundant copies.
    public var packetsRecovered: Int
    /// Samples synthesized by loss concealment.
    public var concealedSamples: Int
    /// Packets that came after their frame had played.
    public var packetsLate = 0
    /// Frames the jitter buffer played in addition (a quiet frame repeated, or concealment while
    /// it waited) and frames it left out (a quiet frame skipped, or dropped to catch up): each
    /// moved what follows a frame later or earlier.
    public var framesInserted = 0
    public var framesSkipped = 0
    /// Channel names they are heard in, sorted.
    public var channels: [String]

    public init(
        participant: ParticipantID, levelDB: Float = SessionSnapshot.silenceDB, speaking: Bool = false,
        muted: Bool = false,
        path: String? = nil, rttMilliseconds: Double? = nil, lossFraction: Double = 0, jitterMilliseconds: Double = 0,
        bufferDelayMilliseconds: Double = 0, targetDelayMilliseconds: Double = 0, packetsReceived: Int = 0,
        packetsLost: Int = 0, packetsRecovered: Int = 0, concealedSamples: Int = 0, channels: [String] = []
    ) {
        self.participant = participant
        self.levelDB = levelDB
        self.speaking = speaking
        self.muted = muted
        self.path = path
        self.rttMilliseconds = rttMilliseconds
        self.lossFraction = lossFraction
        self.jitterMilliseconds = jitterMilliseconds
        self.bufferDelayMilliseconds = bufferDelayMilliseconds
        self.targetDelayMilliseconds = targetDelayMilliseconds
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.packetsRecovered = packetsRecovered
        self.concealedSamples = concealedSamples
        self.channels = channels
    }
}

extension SessionSnapshot {
    /// The level that stands for silence (and for meters that are off).
    public static let silenceDB: Float = -120

    /// `level` as a finite dBFS value no lower than `silenceDB`.
    static func finiteLevel(_ level: Float) -> Float {
        level.isFinite ? max(level, silenceDB) : silenceDB
    }
}
