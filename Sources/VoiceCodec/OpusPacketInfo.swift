import CVoiceOpus

/// What the header of an Opus packet says, read without decoding it.
public struct OpusPacketInfo: Sendable, Hashable {
    /// Which of Opus's coding layers produced the packet.
    public enum Mode: Sendable, Hashable {
        /// SILK (linear prediction) only: speech at narrow to wide band.
        case silk
        /// SILK for the low band plus CELT above it.
        case hybrid
        /// CELT (transform) only: music, or the restricted-low-delay application. No in-band FEC.
        case celt
    }

    public var mode: Mode
    public var bandwidth: OpusBandwidth
    /// Channels coded in the packet (not necessarily the decoder's).
    public var channels: Int
    /// Opus frames in the packet (1…48).
    public var frameCount: Int
    /// Samples per channel the packet decodes to, at the rate asked for.
    public var sampleCount: Int
    /// Whether the packet carries a low-bitrate copy of the frame before it (SILK LBRR data),
    /// so that `OpusDecoder.decodeFEC` recovers that frame rather than concealing it.
    public var hasInbandFEC: Bool

    /// Reads and validates the packet's structure. Throws `.invalidPacket` for anything that is
    /// not a well-formed Opus packet (empty, truncated, inconsistent frame lengths, over 120 ms),
    /// whatever the bytes are.
    public init(parsing packet: UnsafeBufferPointer<UInt8>, sampleRate: Int = 48_000) throws(CodecError) {
        let operation = "OpusPacketInfo.init"
        guard OpusEncoder.Configuration.allowedSampleRates.contains(sampleRate) else {
            throw .invalidSetting(
                operation, setting: "sampleRate", value: "\(sampleRate) Hz",
                allowed: "8000, 12000, 16000, 24000 or 48000 Hz")
        }
        guard let data = packet.baseAddress, !packet.isEmpty, let length = Int32(exactly: packet.count) else {
            throw CodecError(
                .invalidPacket, operation: operation,
                message: "a packet has 1…\(Int32.max) bytes, this one has \(packet.count)")
        }
        // opus_packet_parse checks every length field against the bytes that are there; the
        // other readers below trust the table of contents byte, so they only run after it.
        var payloadOffset: Int32 = 0
        let (frames, firstFrameBytes) = withUnsafeTemporaryAllocation(of: Int16.self, capacity: 48) { sizes in
            let frames = opus_packet_parse(data, length, nil, nil, sizes.baseAddress!, &payloadOffset)
            return (frames, frames > 0 ? Int(sizes[0]) : 0)
        }
        try CodecError.checkOpus(frames, "opus_packet_parse")
        let samples = opus_packet_get_nb_samples(data, length, Int32(sampleRate))
        try CodecError.checkOpus(samples, "opus_packet_get_nb_samples")
        let bandwidthValue = opus_packet_get_bandwidth(data)
        guard let bandwidth = OpusBandwidth(opusValue: bandwidthValue) else {
            throw CodecError(
                opusStatus: bandwidthValue < 0 ? bandwidthValue : OPUS_INVALID_PACKET,
                operation: "opus_packet_get_bandwidth")
        }

        let toc = data[0]
        let configuration = toc >> 3
        self.mode = configuration < 12 ? .silk : configuration < 16 ? .hybrid : .celt
        self.bandwidth = bandwidth
        self.channels = Int(opus_packet_get_nb_channels(data))
        self.frameCount = Int(frames)
        self.sampleCount = Int(samples)

        // SILK writes its per-frame flags as the first bits of its range coder, so they sit in
        // the top bits of the first byte of the first Opus frame: one voice-activity bit per
        // 20 ms SILK frame, then the LBRR (FEC) bit; for stereo the side channel's bits follow.
        if mode == .celt || firstFrameBytes == 0 {
            self.hasInbandFEC = false
        } else {
            let silkFrames = max(1, Int(opus_packet_get_samples_per_frame(data, 48_000)) / 960)
            let firstByte = data[Int(payloadOffset)]
            var lbrr = (firstByte >> (7 - silkFrames)) & 1 == 1
            if channels == 2 { lbrr = lbrr || (firstByte >> (6 - 2 * silkFrames)) & 1 == 1 }
            self.hasInbandFEC = lbrr
        }
    }
}

extension OpusDecoder {
    /// Samples per channel `packet` decodes to at `sampleRate` (opus_packet_get_nb_samples),
    /// after checking the packet is well formed.
    public static func sampleCount(of packet: UnsafeBufferPointer<UInt8>, sampleRate: Int = 48_000)
        throws(CodecError) -> Int
    {
        try OpusPacketInfo(parsing: packet, sampleRate: sampleRate).sampleCount
    }

    /// Opus frames in `packet` (opus_packet_get_nb_frames), after checking it is well formed.
    public static func frameCount(of packet: UnsafeBufferPointer<UInt8>) throws(CodecError) -> Int {
        try OpusPacketInfo(parsing: packet).frameCount
    }

    /// The audio bandwidth `packet` was coded with (opus_packet_get_bandwidth).
    public static func bandwidth(of packet: UnsafeBufferPointer<UInt8>) throws(CodecError) -> OpusBandwidth {
        try OpusPacketInfo(parsing: packet).bandwidth
    }

    /// Whether `packet` carries in-band FEC for the frame before it. When it does not,
    /// `decodeFEC(from:frames:into:)` with it conceals instead of recovering.
    public static func hasInbandFEC(_ packet: UnsafeBufferPointer<UInt8>) throws(CodecError) -> Bool {
        try OpusPacketInfo(parsing: packet).hasInbandFEC
    }
}
