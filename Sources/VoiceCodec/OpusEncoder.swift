import CVoiceOpus
import VoiceCore

/// Compresses frames of PCM audio into Opus packets. Owns a libopus encoder and destroys it
/// exactly once, when the value goes away.
///
/// Thread contract: one thread at a time. Every method that touches the C state is `mutating`,
/// so exclusive access is what the compiler already enforces for a value; moving the encoder to
/// another thread (hence `@unchecked Sendable`) is safe because nothing else refers to the state.
/// `encode` neither allocates nor locks when it succeeds; a failure builds an error message.
public struct OpusEncoder: ~Copyable, @unchecked Sendable {
    /// The largest packet one call can produce: three 20 ms CELT frames of at most 1275 bytes
    /// each (what a 60 ms frame at 510 kbit/s needs) plus the code-3 packet header of up to
    /// 7 bytes. A buffer this big never makes `encode` fail for lack of room.
    public static let maximumPacketBytes = 1_275 * 3 + 7

    /// The settings in force, including those changed by the setters.
    public private(set) var configuration: Configuration
    /// Samples per channel in one frame.
    public let frameSamples: Int
    /// The encoder's algorithmic delay, in samples per channel at the encoder's rate
    /// (OPUS_GET_LOOKAHEAD): the decoded signal lags the input by this much.
    public let lookahead: Int
    private let state: OpaquePointer

    public init(_ configuration: Configuration = Configuration()) throws(CodecError) {
        try configuration.validate(operation: "OpusEncoder.init")
        var status: Int32 = OPUS_OK
        guard
            let state = opus_encoder_create(
                Int32(configuration.sampleRate), Int32(configuration.channels),
                configuration.application.opusValue, &status),
            status == OPUS_OK
        else {
            throw CodecError(opusStatus: status == OPUS_OK ? OPUS_ALLOC_FAIL : status, operation: "opus_encoder_create")
        }
        var lookahead: Int32 = 0
        do {
            try Self.apply(configuration, to: state)
            try CodecError.checkOpus(cvoice_opus_encoder_get_lookahead(state, &lookahead), "OPUS_GET_LOOKAHEAD")
        } catch {
            opus_encoder_destroy(state)
            throw error
        }
        self.state = state
        self.configuration = configuration
        self.frameSamples = configuration.frameSamples
        self.lookahead = Int(lookahead)
    }

    deinit {
        opus_encoder_destroy(state)
    }

    private static func apply(_ configuration: Configuration, to state: OpaquePointer) throws(CodecError) {
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_bitrate(state, Int32(configuration.bitrate)), "OPUS_SET_BITRATE")
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_complexity(state, Int32(configuration.complexity)), "OPUS_SET_COMPLEXITY")
        try applyBitrateMode(configuration.bitrateMode, to: state)
        try CodecError.checkOpus(cvoice_opus_encoder_set_dtx(state, configuration.dtx ? 1 : 0), "OPUS_SET_DTX")
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_inband_fec(state, configuration.inbandFEC ? 1 : 0), "OPUS_SET_INBAND_FEC")
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_packet_loss_percent(state, Int32(configuration.packetLossPercent)),
            "OPUS_SET_PACKET_LOSS_PERC")
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_signal(state, configuration.signal.opusValue), "OPUS_SET_SIGNAL")
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_max_bandwidth(state, configuration.maxBandwidth.opusValue),
            "OPUS_SET_MAX_BANDWIDTH")
    }

    private static func applyBitrateMode(_ mode: Configuration.BitrateMode, to state: OpaquePointer) throws(CodecError)
    {
        let (vbr, constrained): (Int32, Int32) =
            switch mode {
            case .variable: (1, 0)
            case .constrainedVariable: (1, 1)
            case .constant: (0, 0)
            }
        try CodecError.checkOpus(cvoice_opus_encoder_set_vbr(state, vbr), "OPUS_SET_VBR")
        try CodecError.checkOpus(cvoice_opus_encoder_set_vbr_constraint(state, constrained), "OPUS_SET_VBR_CONSTRAINT")
    }

    // MARK: Runtime settings

    public mutating func setBitrate(_ bitsPerSecond: Int) throws(CodecError) {
        try Configuration.validateBitrate(bitsPerSecond, operation: "OpusEncoder.setBitrate")
        try CodecError.checkOpus(cvoice_opus_encoder_set_bitrate(state, Int32(bitsPerSecond)), "OPUS_SET_BITRATE")
        configuration.bitrate = bitsPerSecond
    }

    public mutating func setComplexity(_ complexity: Int) throws(CodecError) {
        try Configuration.validateComplexity(complexity, operation: "OpusEncoder.setComplexity")
        try CodecError.checkOpus(cvoice_opus_encoder_set_complexity(state, Int32(complexity)), "OPUS_SET_COMPLEXITY")
        configuration.complexity = complexity
    }

    public mutating func setPacketLossPercent(_ percent: Int) throws(CodecError) {
        try Configuration.validatePacketLossPercent(percent, operation: "OpusEncoder.setPacketLossPercent")
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_packet_loss_percent(state, Int32(percent)), "OPUS_SET_PACKET_LOSS_PERC")
        configuration.packetLossPercent = percent
    }

    public mutating func setInbandFEC(_ enabled: Bool) throws(CodecError) {
        try CodecError.checkOpus(cvoice_opus_encoder_set_inband_fec(state, enabled ? 1 : 0), "OPUS_SET_INBAND_FEC")
        configuration.inbandFEC = enabled
    }

    public mutating func setDTX(_ enabled: Bool) throws(CodecError) {
        try CodecError.checkOpus(cvoice_opus_encoder_set_dtx(state, enabled ? 1 : 0), "OPUS_SET_DTX")
        configuration.dtx = enabled
    }

    public mutating func setBitrateMode(_ mode: Configuration.BitrateMode) throws(CodecError) {
        try Self.applyBitrateMode(mode, to: state)
        configuration.bitrateMode = mode
    }

    public mutating func setMaxBandwidth(_ bandwidth: OpusBandwidth) throws(CodecError) {
        try CodecError.checkOpus(
            cvoice_opus_encoder_set_max_bandwidth(state, bandwidth.opusValue), "OPUS_SET_MAX_BANDWIDTH")
        configuration.maxBandwidth = bandwidth
    }

    public mutating func setSignal(_ signal: Configuration.Signal) throws(CodecError) {
        try CodecError.checkOpus(cvoice_opus_encoder_set_signal(state, signal.opusValue), "OPUS_SET_SIGNAL")
        configuration.signal = signal
    }

    // MARK: State

    /// True while DTX is on and the encoder is in a silent stretch it is not sending in full.
    public var isInDTX: Bool {
        mutating get {
            var inDTX: Int32 = 0
            // The request cannot fail on a live encoder; a failure would leave `inDTX` at 0.
            _ = cvoice_opus_encoder_get_in_dtx(state, &inDTX)
            return inDTX != 0
        }
    }

    /// Forgets the signal history (as after a long pause or a new talker) but keeps the settings.
    public mutating func reset() {
        // OPUS_RESET_STATE cannot fail on a live encoder.
        _ = cvoice_opus_encoder_reset_state(state)
    }

    // MARK: Encoding

    /// Encodes exactly one frame (`frameSamples × channels` interleaved samples in -1…1) into
    /// `packet` and returns the packet's length in bytes.
    public mutating func encode(
        _ pcm: UnsafeBufferPointer<Float>,
        into packet: UnsafeMutableBufferPointer<UInt8>
    ) throws(CodecError) -> Int {
        let (input, output, capacity) = try checkBuffers(pcm, packet, operation: "OpusEncoder.encode")
        let length = opus_encode_float(state, input, Int32(frameSamples), output, capacity)
        try CodecError.checkOpus(length, "opus_encode_float")
        return Int(length)
    }

    /// Encodes exactly one frame of 16-bit samples; see the `Float` variant.
    public mutating func encode(
        _ pcm: UnsafeBufferPointer<Int16>,
        into packet: UnsafeMutableBufferPointer<UInt8>
    ) throws(CodecError) -> Int {
        let (input, output, capacity) = try checkBuffers(pcm, packet, operation: "OpusEncoder.encode")
        let length = opus_encode(state, input, Int32(frameSamples), output, capacity)
        try CodecError.checkOpus(length, "opus_encode")
        return Int(length)
    }

    /// Encodes one frame into a new array. Allocates: for tools and tests, not for audio threads.
    public mutating func encode(_ pcm: [Float]) throws(CodecError) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: Self.maximumPacketBytes)
        let length = try pcm.withUnsafeBufferPointer { (input) throws(CodecError) -> Int in
            try packet.withUnsafeMutableBufferPointer { (output) throws(CodecError) -> Int in
                try encode(input, into: output)
            }
        }
        packet.removeSubrange(length...)
        return packet
    }

    @inline(__always)
    private func checkBuffers<Sample>(
        _ pcm: UnsafeBufferPointer<Sample>,
        _ packet: UnsafeMutableBufferPointer<UInt8>,
        operation: String
    ) throws(CodecError) -> (UnsafePointer<Sample>, UnsafeMutablePointer<UInt8>, Int32) {
        let expected = frameSamples * configuration.channels
        guard pcm.count == expected, let input = pcm.baseAddress else {
            throw CodecError(
                .invalidArgument, operation: operation,
                message: "got \(pcm.count) samples; one \(configuration.frameDuration) frame at "
                    + "\(configuration.sampleRate) Hz with \(configuration.channels) channel(s) is exactly "
                    + "\(expected) samples")
        }
        guard let output = packet.baseAddress, !packet.isEmpty else {
            throw CodecError(
                .bufferTooSmall, operation: operation,
                message: "the packet buffer is empty; give it OpusEncoder.maximumPacketBytes bytes")
        }
        return (input, output, Int32(clamping: packet.count))
    }
}
