import VoiceCodec
import VoiceCore
import VoiceWire

/// Everything a `VoiceSendPipeline` is created with.
public struct SendConfiguration: Sendable, Hashable {
    /// Who sends: written into every packet.
    public var sender: MediaID
    /// Which voice channel the packets belong to.
    public var channel: ChannelNumber
    public var frameDuration: FrameDuration
    /// Opus bitrate of the primary frames, bit/s. 32 kbit/s and more let in-band FEC start from
    /// a 5 % loss hint; at 24 kbit/s it needs 10 %.
    public var bitrate: Int
    /// Opus complexity of the primary encoder, 0…10.
    public var complexity: Int
    /// speexdsp noise suppression before the gate.
    public var denoise: Bool
    /// speexdsp automatic gain control before the gate.
    public var automaticGainControl: Bool
    public var gate: SpeechGate.Configuration
    /// While the gate says silence, one packet (the current frame, not flagged as speech) goes out
    /// this often, so the stream stays alive for the listener and for NAT bindings.
    public var keepAliveMilliseconds: Double
    /// While packets carry redundant copies, the most the primary frame and its copies may take
    /// together, bit/s. The copies are the earlier frames' own bytes, so the primary encoder runs
    /// at this divided by the frames each packet carries (never above `bitrate`, never below
    /// 6 kbit/s): 24 kbit/s with two copies and the default, `bitrate` up to 36 kbit/s with one.
    public var protectedTotalBitrate: Int
    public var lossAdaptation: SendLossAdaptation.Configuration
    /// How much delay the listener may add to repair loss bursts from redundant copies, ms: the
    /// farthest a copy reaches back (at least two frames, whatever this says). A listener whose
    /// packets carry a copy n frames back holds n frames more, so this is the latency bursty loss
    /// may cost, and only while reports show bursts.
    public var maximumRepairDelayMilliseconds: Double
    /// The most delay the engine may add mouth to ear: copies never reach farther back than the
    /// listener can hold within it (`DelayBudget.maximumRepairReach`).
    public var delayBudget: DelayBudget
    /// The first packet's sequence number; later ones count up from it, wrapping.
    public var initialSequence: UInt16
    /// The first frame's timestamp (48 kHz samples); later ones count up from it, wrapping.
    public var initialTimestamp: UInt32

    public init(
        sender: MediaID,
        channel: ChannelNumber,
        frameDuration: FrameDuration = VoiceDefaults.frameDuration,
        bitrate: Int = VoiceDefaults.bitrate,
        complexity: Int = VoiceDefaults.complexity,
        denoise: Bool = false,
        automaticGainControl: Bool = false,
        gate: SpeechGate.Configuration = SpeechGate.Configuration(),
        keepAliveMilliseconds: Double = 400,
        protectedTotalBitrate: Int = 72_000,
        lossAdaptation: SendLossAdaptation.Configuration = SendLossAdaptation.Configuration(),
        maximumRepairDelayMilliseconds: Double = 120,
        delayBudget: DelayBudget? = nil,
        initialSequence: UInt16 = 0,
        initialTimestamp: UInt32 = 0
    ) {
        self.sender = sender
        self.channel = channel
        self.frameDuration = frameDuration
        self.bitrate = bitrate
        self.complexity = complexity
        self.denoise = denoise
        self.automaticGainControl = automaticGainControl
        self.gate = gate
        self.keepAliveMilliseconds = keepAliveMilliseconds
        self.protectedTotalBitrate = protectedTotalBitrate
        self.lossAdaptation = lossAdaptation
        self.maximumRepairDelayMilliseconds = maximumRepairDelayMilliseconds
        self.delayBudget = delayBudget ?? .standard(frameDuration: frameDuration)
        self.initialSequence = initialSequence
        self.initialTimestamp = initialTimestamp
    }

    /// Samples in one frame at 48 kHz.
    public var frameSamples: Int { frameDuration.engineFrames }

    /// `denoise`, `automaticGainControl` and the gate's absolute threshold, as one value.
    public var speechProcessing: SpeechProcessing {
        get {
            SpeechProcessing(
                denoise: denoise, automaticGainControl: automaticGainControl,
                voiceActivityThresholdDBFS: gate.absoluteThresholdDBFS)
        }
        set {
            denoise = newValue.denoise
            automaticGainControl = newValue.automaticGainControl
            gate.absoluteThresholdDBFS = newValue.voiceActivityThresholdDBFS
        }
    }

    /// The farthest a redundant copy reaches back, in frames: `maximumRepairDelayMilliseconds`
    /// in whole frames, at least 2, and never beyond what a packet's 16-bit offset can say.
    public var maximumRedundancyReach: Int {
        let budget = maximumRepairDelayMilliseconds.isFinite ? min(max(maximumRepairDelayMilliseconds, 0), 1_000) : 0
        let frames = Int((budget / frameDuration.milliseconds).rounded(.down))
        return min(max(frames, 2), Int(UInt16.max) / frameSamples)
    }

    /// The primary encoder's bitrate while each packet carries `copies` redundant copies.
    public func primaryBitrate(copies: Int) -> Int {
        guard copies > 0 else { return bitrate }
        return max(min(protectedTotalBitrate / (copies + 1), bitrate), 6_000)
    }

    /// The primary encoder's settings: FEC and loss hint start off and follow receiver reports.
    ///
    /// Frames shorter than 10 ms are coded by CELT alone in every application, since SILK needs
    /// 10 ms. The speech application still holds back 4 ms of input, which only a switch to SILK
    /// would use, on top of CELT's 2.5 ms look-ahead; restricted low delay codes those frames
    /// with the same CELT and look-ahead only. For 5 ms frames that is 4 ms of a 15 ms budget.
    var primaryEncoder: OpusEncoder.Configuration {
        OpusEncoder.Configuration(
            application: Self.application(for: frameDuration),
            frameDuration: frameDuration, bitrate: bitrate, complexity: complexity, dtx: false, inbandFEC: false,
            packetLossPercent: 0)
    }

    /// The primary encoder's application for `frameDuration` (see `primaryEncoder`).
    static func application(for frameDuration: FrameDuration) -> OpusEncoder.Configuration.Application {
        frameDuration.milliseconds < 10 ? .restrictedLowDelay : .voip
    }

    /// Throws `.invalidArgument` naming the first setting out of range.
    public func validate(operation: String = "SendConfiguration.validate") throws(CodecError) {
        try primaryEncoder.validate(operation: operation)
        guard (12_000...1_536_000).contains(protectedTotalBitrate) else {
            throw CodecError.invalidSetting(
                operation, setting: "protectedTotalBitrate", value: "\(protectedTotalBitrate) bit/s",
                allowed: "12000…1536000 bit/s (the primary frame and its copies together)")
        }
        do {
            try gate.validate()
        } catch {
            throw CodecError(.invalidArgument, operation: operation, message: error.description)
        }
        guard maximumRepairDelayMilliseconds.isFinite, (0...1_000).contains(maximumRepairDelayMilliseconds) else {
            throw CodecError.invalidSetting(
                operation, setting: "maximumRepairDelayMilliseconds", value: "\(maximumRepairDelayMilliseconds)",
                allowed: "0…1000 ms (copies reach at least two frames back whatever it says)")
        }
        try delayBudget.validate(operation: operation)
        guard keepAliveMilliseconds.isFinite, (0...10_000).contains(keepAliveMilliseconds) else {
            throw CodecError.invalidSetting(
                operation, setting: "keepAliveMilliseconds", value: "\(keepAliveMilliseconds)",
                allowed: "0…10000 ms (0 sends every silent frame)")
        }
    }
}
