import VoiceCodec
import VoiceCore

/// Everything a `VoiceSendPipeline` is created with.
public struct SendConfiguration: Sendable, Hashable {
    /// Who sends: written into every packet.
    public var sender: UInt32
    /// Which voice channel the packets belong to.
    public var channel: UInt16
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
    /// The primary encoder's bitrate while packets carry redundant copies, bit/s (at most
    /// `bitrate`). The copies are the earlier frames' own bytes, so this is also the copies'
    /// bitrate: protection costs one or two times this instead of one or two times `bitrate`.
    public var protectedBitrate: Int
    public var lossAdaptation: SendLossAdaptation.Configuration
    /// The first packet's sequence number; later ones count up from it, wrapping.
    public var initialSequence: UInt16
    /// The first frame's timestamp (48 kHz samples); later ones count up from it, wrapping.
    public var initialTimestamp: UInt32

    public init(
        sender: UInt32,
        channel: UInt16,
        frameDuration: FrameDuration = .ms20,
        bitrate: Int = 32_000,
        complexity: Int = 5,
        denoise: Bool = false,
        automaticGainControl: Bool = false,
        gate: SpeechGate.Configuration = SpeechGate.Configuration(),
        keepAliveMilliseconds: Double = 400,
        protectedBitrate: Int = 24_000,
        lossAdaptation: SendLossAdaptation.Configuration = SendLossAdaptation.Configuration(),
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
        self.protectedBitrate = protectedBitrate
        self.lossAdaptation = lossAdaptation
        self.initialSequence = initialSequence
        self.initialTimestamp = initialTimestamp
    }

    /// Samples in one frame at 48 kHz.
    public var frameSamples: Int { frameDuration.engineFrames }

    /// The primary encoder's settings: FEC and loss hint start off and follow receiver reports.
    var primaryEncoder: OpusEncoder.Configuration {
        OpusEncoder.Configuration(
            frameDuration: frameDuration, bitrate: bitrate, complexity: complexity, dtx: false, inbandFEC: false,
            packetLossPercent: 0)
    }

    /// Throws `.invalidArgument` naming the first setting out of range.
    public func validate(operation: String = "SendConfiguration.validate") throws(CodecError) {
        try primaryEncoder.validate(operation: operation)
        guard (6_000...bitrate).contains(protectedBitrate) else {
            throw CodecError.invalidSetting(
                operation, setting: "protectedBitrate", value: "\(protectedBitrate) bit/s",
                allowed: "6000…bitrate (\(bitrate)) bit/s")
        }
        do {
            try gate.validate()
        } catch {
            throw CodecError(.invalidArgument, operation: operation, message: error.description)
        }
        guard keepAliveMilliseconds.isFinite, (0...10_000).contains(keepAliveMilliseconds) else {
            throw CodecError.invalidSetting(
                operation, setting: "keepAliveMilliseconds", value: "\(keepAliveMilliseconds)",
                allowed: "0…10000 ms (0 sends every silent frame)")
        }
    }
}
