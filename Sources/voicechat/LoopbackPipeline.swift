import VoiceCodec
import VoiceCore

/// One mono 48 kHz frame through the codec: meter, encode, decode, meter. Owns the codec
/// state and its buffers, allocated once.
struct LoopbackPipeline: ~Copyable {
    let frameFrames: Int
    private var encoder: OpusEncoder
    private var decoder: OpusDecoder
    private let packet: UnsafeMutableBufferPointer<UInt8>

    private(set) var inputMeter = LevelMeter()
    private(set) var outputMeter = LevelMeter()
    private(set) var frames = 0
    private(set) var packetBytes = 0
    private(set) var encodeNanoseconds: MediaTime = 0
    private(set) var decodeNanoseconds: MediaTime = 0
    /// Samples of delay the codec adds (the encoder's lookahead).
    let codecDelayFrames: Int

    init(configuration: OpusEncoder.Configuration) throws(CodecError) {
        // Both are created before either is stored, so that a failure leaves nothing half-built.
        let encoder = try OpusEncoder(configuration)
        let decoder = try OpusDecoder(sampleRate: configuration.sampleRate, channels: configuration.channels)
        codecDelayFrames = encoder.lookahead
        self.encoder = encoder
        self.decoder = decoder
        frameFrames = configuration.frameDuration.engineFrames
        packet = .allocate(capacity: OpusEncoder.maximumPacketBytes)
    }

    deinit {
        packet.deallocate()
    }

    /// Encodes `frame` and decodes the packet into `decoded`; both hold `frameFrames` samples.
    mutating func process(_ frame: UnsafeBufferPointer<Float>, into decoded: UnsafeMutableBufferPointer<Float>)
        throws(CodecError)
    {
        inputMeter.process(frame)
        let encodeStart = MediaTime.monotonicNow()
        let byteCount = try encoder.encode(frame, into: packet)
        let decodeStart = MediaTime.monotonicNow()
        _ = try decoder.decode(UnsafeBufferPointer(rebasing: packet[0..<byteCount]), into: decoded)
        let decodeEnd = MediaTime.monotonicNow()
        outputMeter.process(UnsafeBufferPointer(decoded))
        frames += 1
        packetBytes += byteCount
        encodeNanoseconds += decodeStart - encodeStart
        decodeNanoseconds += decodeEnd - decodeStart
    }

}
