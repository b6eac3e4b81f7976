import CVoiceOpus

/// Turns Opus packets back into PCM, and conceals lost ones. Owns a libopus decoder and
/// destroys it exactly once.
///
/// Packets are untrusted bytes from the network: every call checks lengths before libopus sees
/// them, and a malformed packet is an `.invalidPacket` error that leaves the decoder usable.
///
/// Thread contract: one thread at a time; every method that touches the C state is `mutating`,
/// and nothing else refers to the state, so moving the decoder between threads is safe (hence
/// `@unchecked Sendable`). Decoding neither allocates nor locks when it succeeds.
public struct OpusDecoder: ~Copyable, @unchecked Sendable {

    public let sampleRate: Int
    public let channels: Int
    private let state: OpaquePointer

    public init(sampleRate: Int = 48_000, channels: Int = 1) throws(CodecError) {
        let operation = "OpusDecoder.init"
        guard OpusEncoder.Configuration.allowedSampleRates.contains(sampleRate) else {
            throw .invalidSetting(
                operation, setting: "sampleRate", value: "\(sampleRate) Hz",
                allowed: "8000, 12000, 16000, 24000 or 48000 Hz")
        }
        guard channels == 1 || channels == 2 else {
            throw .invalidSetting(operation, setting: "channels", value: "\(channels)", allowed: "1 or 2")
        }
        var status: Int32 = OPUS_OK
        guard let state = opus_decoder_create(Int32(sampleRate), Int32(channels), &status), status == OPUS_OK else {
            throw CodecError(opusStatus: status == OPUS_OK ? OPUS_ALLOC_FAIL : status, operation: "opus_decoder_create")
        }
        self.state = state
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit {
        opus_decoder_destroy(state)
    }

    /// Samples per channel in the longest packet (120 ms): a buffer of this many frames never
    /// makes `decode` fail for lack of room.
    public var maximumFrameSamples: Int { sampleRate * 120 / 1_000 }

    /// Samples per channel that the last decode, FEC recovery or concealment produced
    /// (OPUS_GET_LAST_PACKET_DURATION).
    public var lastPacketDuration: Int {
        mutating get {
            var samples: Int32 = 0
            // Cannot fail on a live decoder; a failure would leave 0.
            _ = cvoice_opus_decoder_get_last_packet_duration(state, &samples)
            return Int(samples)
        }
    }

    /// Forgets the decoding history, e.g. when a talker starts a new stream.
    public mutating func reset() {
        // OPUS_RESET_STATE cannot fail on a live decoder.
        _ = cvoice_opus_decoder_reset_state(state)
    }

    // MARK: Decoding

    /// Decodes `packet` into `pcm` (interleaved, `channels` per frame) and returns the samples
    /// per channel decoded. `pcm` must hold the packet's whole duration: `maximumFrameSamples`
    /// frames always do. An empty packet is `.invalidPacket`: call `conceal` for a lost one.
    public mutating func decode(
        _ packet: UnsafeBufferPointer<UInt8>,
        into pcm: UnsafeMutableBufferPointer<Float>
    ) throws(CodecError) -> Int {
        let (data, length) = try checkPacket(packet, operation: "OpusDecoder.decode")
        let (output, capacity) = try checkOutput(pcm, operation: "OpusDecoder.decode")
        let frames = opus_decode_float(state, data, length, output, capacity, 0)
        try CodecError.checkOpus(frames, "opus_decode_float")
        return Int(frames)
    }

    /// Decodes `packet` into 16-bit samples; see the `Float` variant.
    public mutating func decode(
        _ packet: UnsafeBufferPointer<UInt8>,
        into pcm: UnsafeMutableBufferPointer<Int16>
    ) throws(CodecError) -> Int {
        let (data, length) = try checkPacket(packet, operation: "OpusDecoder.decode")
        let (output, capacity) = try checkOutput(pcm, operation: "OpusDecoder.decode")
        let frames = opus_decode(state, data, length, output, capacity, 0)
        try CodecError.checkOpus(frames, "opus_decode")
        return Int(frames)
    }

    /// Recovers the lost frame that came just before `nextPacket` from the low-bitrate copy the
    /// encoder put in `nextPacket` (in-band FEC), writing `frames` samples per channel (the lost
    /// frame's length) into `pcm`. Afterwards decode `nextPacket` itself as usual.
    ///
    /// When `nextPacket` carries no FEC (CELT-only packets, a sender without FEC, a loss hint too
    /// low for libopus to spend the bits) libopus conceals the frame instead, with the same
    /// quality as `conceal` (the samples may differ slightly in hybrid mode, where libopus runs
    /// SILK's concealment inside the FEC path); `hasInbandFEC(_:)` tells beforehand which will
    /// happen.
    public mutating func decodeFEC(
        from nextPacket: UnsafeBufferPointer<UInt8>,
        frames: Int,
        into pcm: UnsafeMutableBufferPointer<Float>
    ) throws(CodecError) -> Int {
        let operation = "OpusDecoder.decodeFEC"
        let (data, length) = try checkPacket(nextPacket, operation: operation)
        let output = try checkConcealedFrames(frames, pcm, operation: operation)
        let decoded = opus_decode_float(state, data, length, output, Int32(frames), 1)
        try CodecError.checkOpus(decoded, "opus_decode_float")
        return Int(decoded)
    }

    /// Recovers a lost frame from `nextPacket`'s in-band FEC into 16-bit samples; see the
    /// `Float` variant.
    public mutating func decodeFEC(
        from nextPacket: UnsafeBufferPointer<UInt8>,
        frames: Int,
        into pcm: UnsafeMutableBufferPointer<Int16>
    ) throws(CodecError) -> Int {
        let operation = "OpusDecoder.decodeFEC"
        let (data, length) = try checkPacket(nextPacket, operation: operation)
        let output = try checkConcealedFrames(frames, pcm, operation: operation)
        let decoded = opus_decode(state, data, length, output, Int32(frames), 1)
        try CodecError.checkOpus(decoded, "opus_decode")
        return Int(decoded)
    }

    /// Packet loss concealment: synthesizes `frames` samples per channel (a multiple of 2.5 ms)
    /// that continue the audio decoded so far, for a packet that never arrived.
    public mutating func conceal(frames: Int, into pcm: UnsafeMutableBufferPointer<Float>) throws(CodecError) -> Int {
        let output = try checkConcealedFrames(frames, pcm, operation: "OpusDecoder.conceal")
        let decoded = opus_decode_float(state, nil, 0, output, Int32(frames), 0)
        try CodecError.checkOpus(decoded, "opus_decode_float")
        return Int(decoded)
    }

    /// Conceals a lost packet into 16-bit samples; see the `Float` variant.
    public mutating func conceal(frames: Int, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        let output = try checkConcealedFrames(frames, pcm, operation: "OpusDecoder.conceal")
        let decoded = opus_decode(state, nil, 0, output, Int32(frames), 0)
        try CodecError.checkOpus(decoded, "opus_decode")
        return Int(decoded)
    }

    // MARK: Checks

    @inline(__always)
    private func checkPacket(
        _ packet: UnsafeBufferPointer<UInt8>,
        operation: String
    ) throws(CodecError) -> (UnsafePointer<UInt8>, Int32) {
        guard let data = packet.baseAddress, !packet.isEmpty else {
            throw CodecError(
                .invalidPacket, operation: operation,
                message: "the packet is empty; for a packet that never arrived call conceal(frames:into:)")
        }
        guard let length = Int32(exactly: packet.count) else {
            throw CodecError(
                .invalidPacket, operation: operation,
                message: "the packet has \(packet.count) bytes, more than any Opus packet can have")
        }
        return (data, length)
    }

    @inline(__always)
    private func checkOutput<Sample>(
        _ pcm: UnsafeMutableBufferPointer<Sample>,
        operation: String
    ) throws(CodecError) -> (UnsafeMutablePointer<Sample>, Int32) {
        let capacity = pcm.count / channels
        guard let output = pcm.baseAddress, capacity > 0 else {
            throw CodecError(
                .bufferTooSmall, operation: operation,
                message: "the output buffer holds \(pcm.count) samples, not even one frame of \(channels) channel(s); "
                    + "give it maximumFrameSamples × channels samples")
        }
        return (output, Int32(clamping: capacity))
    }

    @inline(__always)
    private func checkConcealedFrames<Sample>(
        _ frames: Int,
        _ pcm: UnsafeMutableBufferPointer<Sample>,
        operation: String
    ) throws(CodecError) -> UnsafeMutablePointer<Sample> {
        // libopus conceals and recovers in whole 2.5 ms steps, and at most 120 ms at once.
        let step = sampleRate / 400
        guard frames > 0, frames % step == 0, frames <= maximumFrameSamples else {
            throw .invalidSetting(
                operation, setting: "frames", value: "\(frames)",
                allowed: "a multiple of \(step) (2.5 ms at \(sampleRate) Hz) from \(step) to \(maximumFrameSamples)")
        }
        guard let output = pcm.baseAddress, pcm.count >= frames * channels else {
            throw CodecError(
                .bufferTooSmall, operation: operation,
                message: "the output buffer holds \(pcm.count) samples; \(frames) frames of \(channels) channel(s) "
                    + "need \(frames * channels)")
        }
        return output
    }
}
