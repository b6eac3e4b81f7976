import CVoiceSpeexDSP

/// speexdsp's adaptive jitter buffer, as the reference receiver ("plain speexdsp jitter buffer +
/// Opus PLC") the engine's own receive path is measured against.
///
/// It is wrapped faithfully: the library's default adaptive behaviour (delay chosen from its
/// arrival-time histories, within `maximumLateRate`), its own notion of a tick, and its statuses.
/// Timestamps and spans are in 48 kHz samples. Each received packet goes in with `put`; once per
/// playout frame the caller calls `get` for one frame's span (decoding the packet, or concealing
/// on `.missing` / `.insertion`), then `tick`.
///
/// Owns its C state and frees it exactly once. Thread contract: one thread at a time (every call
/// that touches the state is `mutating`, and a `~Copyable` value has a single owner), so moving it
/// to another thread is safe: hence `@unchecked Sendable`. The library allocates a copy of each
/// packet in `put` and frees it in `get`, so unlike the engine's receive path this baseline is not
/// for device threads.
public struct SpeexJitterBuffer: ~Copyable, @unchecked Sendable {
    /// What `get` found for the current playout position.
    public enum Status: Sendable, Hashable {
        /// A packet was copied out: decode it.
        case ok
        /// No packet for this position (lost or late): conceal.
        case missing
        /// The buffer is growing its delay: play a concealment frame without consuming anything.
        case insertion
    }

    /// The outcome of one `get`.
    public struct Packet: Sendable, Hashable {
        public var status: Status
        /// Bytes copied into the caller's buffer (0 unless `.ok`).
        public var byteCount: Int
        /// The packet's timestamp, or the playout position when nothing was returned.
        public var timestamp: UInt32
        /// Samples the packet (or the gap to conceal) covers.
        public var span: UInt32
        public var sequence: UInt16
        /// Where in the requested span the packet starts, in samples (library's `start_offset`).
        public var startOffset: Int32
    }

    /// The largest packet `put` accepts and `get` needs room for.
    public let maximumPacketBytes: Int
    private let state: OpaquePointer

    /// - Parameters:
    ///   - stepSamples: the granularity of delay changes in samples; normally one frame (960 for
    ///     20 ms at 48 kHz), as `jitter_buffer_init(step)` expects.
    ///   - maximumPacketBytes: the largest packet that will be stored.
    public init(stepSamples: Int = 960, maximumPacketBytes: Int = 1500) throws(CodecError) {
        guard stepSamples > 0, stepSamples <= 48_000 else {
            throw CodecError(
                .invalidArgument, operation: "SpeexJitterBuffer.init",
                message: "step must be 1…48000 samples (one frame, e.g. 960), not \(stepSamples)")
        }
        guard maximumPacketBytes > 0, maximumPacketBytes <= 65_536 else {
            throw CodecError(
                .invalidArgument, operation: "SpeexJitterBuffer.init",
                message: "maximum packet size must be 1…65536 bytes, not \(maximumPacketBytes)")
        }
        guard let state = jitter_buffer_init(Int32(stepSamples)) else {
            throw CodecError(
                .allocationFailed, operation: "jitter_buffer_init", message: "could not allocate the jitter buffer")
        }
        self.state = state
        self.maximumPacketBytes = maximumPacketBytes
    }

    deinit {
        jitter_buffer_destroy(state)
    }

    /// Stores a copy of one received packet. Packets older than the playout position are dropped by
    /// the library (they count as late in its delay estimate).
    public mutating func put(
        _ bytes: UnsafeRawBufferPointer, timestamp: UInt32, span: UInt32, sequence: UInt16 = 0
    ) throws(CodecError) {
        guard bytes.count <= maximumPacketBytes else {
            throw CodecError(
                .invalidArgument, operation: "SpeexJitterBuffer.put",
                message: "packet of \(bytes.count) bytes exceeds the \(maximumPacketBytes) this buffer was created for")
        }
        guard span > 0 else {
            throw CodecError(.invalidArgument, operation: "SpeexJitterBuffer.put", message: "span must be positive")
        }
        // The library copies the bytes and never writes through this pointer.
        var packet = JitterBufferPacket(
            data: UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: CChar.self)),
            len: spx_uint32_t(bytes.count), timestamp: timestamp, span: span, sequence: sequence, user_data: 0)
        jitter_buffer_put(state, &packet)
    }

    /// Takes the packet for the current playout position, covering up to `desiredSpan` samples,
    /// copying it into `buffer` (which must hold `maximumPacketBytes`).
    public mutating func get(desiredSpan: Int, into buffer: UnsafeMutableRawBufferPointer) throws(CodecError)
        -> Packet
    {
        guard buffer.count >= maximumPacketBytes, let base = buffer.baseAddress else {
            throw CodecError(
                .bufferTooSmall, operation: "SpeexJitterBuffer.get",
                message: "output buffer has \(buffer.count) bytes; it must hold \(maximumPacketBytes)")
        }
        var packet = JitterBufferPacket(
            data: base.assumingMemoryBound(to: CChar.self), len: spx_uint32_t(maximumPacketBytes), timestamp: 0,
            span: 0, sequence: 0, user_data: 0)
        var startOffset: spx_int32_t = 0
        let result = jitter_buffer_get(state, &packet, spx_int32_t(desiredSpan), &startOffset)
        let status: Status
        switch result {
        case JITTER_BUFFER_OK: status = .ok
        case JITTER_BUFFER_INSERTION: status = .insertion
        case JITTER_BUFFER_MISSING: status = .missing
        default:
            throw CodecError(
                .internalError, operation: "jitter_buffer_get", message: "the jitter buffer reported an error",
                status: result)
        }
        return Packet(
            status: status, byteCount: status == .ok ? Int(packet.len) : 0, timestamp: packet.timestamp,
            span: packet.span, sequence: packet.sequence, startOffset: startOffset)
    }

    /// Advances the playout position by one frame; call once after each `get`.
    public mutating func tick() {
        jitter_buffer_tick(state)
    }

    /// The playout position, in samples.
    public mutating func pointerTimestamp() -> UInt32 {
        UInt32(bitPattern: jitter_buffer_get_pointer_timestamp(state))
    }

    /// Empties the buffer and forgets its timing, as if newly created.
    public mutating func reset() {
        jitter_buffer_reset(state)
    }

    /// Packets stored and not yet taken.
    public mutating func availableCount() -> Int {
        Int(control(JITTER_BUFFER_GET_AVAILABLE_COUNT))
    }

    /// Extra safety delay, in samples, added to the library's own choice (default 0).
    public mutating func margin() -> Int { Int(control(JITTER_BUFFER_GET_MARGIN)) }
    public mutating func setMargin(_ samples: Int) { control(JITTER_BUFFER_SET_MARGIN, Int32(clamping: samples)) }

    /// Granularity of delay changes, in samples.
    public mutating func delayStep() -> Int { Int(control(JITTER_BUFFER_GET_DELAY_STEP)) }

    /// Size of one concealment step, in samples.
    public mutating func concealmentSize() -> Int { Int(control(JITTER_BUFFER_GET_CONCEALMENT_SIZE)) }
    public mutating func setConcealmentSize(_ samples: Int) {
        control(JITTER_BUFFER_SET_CONCEALMENT_SIZE, Int32(clamping: samples))
    }

    /// The late-packet rate, in percent, the adaptive delay aims for.
    public mutating func maximumLateRate() -> Int { Int(control(JITTER_BUFFER_GET_MAX_LATE_RATE)) }
    public mutating func setMaximumLateRate(_ percent: Int) {
        control(JITTER_BUFFER_SET_MAX_LATE_RATE, Int32(clamping: percent))
    }

    /// One `jitter_buffer_ctl` call on an `spx_int32_t`, which is what every request used here takes.
    @discardableResult
    private mutating func control(_ request: Int32, _ value: Int32 = 0) -> Int32 {
        var value = value
        _ = jitter_buffer_ctl(state, request, &value)
        return value
    }
}
