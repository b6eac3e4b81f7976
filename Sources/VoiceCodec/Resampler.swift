import CVoiceSpeexDSP

/// Converts interleaved float audio between two sample rates with speexdsp's resampler.
///
/// Owns its C state and frees it exactly once. Thread contract: one thread at a time
/// (every call that touches the state is `mutating`); `process` neither allocates nor locks,
/// so a device thread may call it.
public struct Resampler: ~Copyable, @unchecked Sendable {
    public let channels: Int
    public let inputRate: Int
    public let outputRate: Int
    private let state: OpaquePointer

    /// - Parameter quality: 0 (fastest) … 10 (best). 5 is speexdsp's default for VoIP:
    ///   about 12 µs per 20 ms mono frame here, with stop-band attenuation well below the
    ///   codec's noise floor.
    public init(channels: Int, inputRate: Int, outputRate: Int, quality: Int = 5) throws(CodecError) {
        guard channels > 0, channels <= 8 else {
            throw CodecError(
                .invalidArgument, operation: "Resampler.init", message: "channels must be 1…8, not \(channels)")
        }
        guard inputRate >= 1_000, inputRate <= 384_000, outputRate >= 1_000, outputRate <= 384_000 else {
            throw CodecError(
                .invalidArgument, operation: "Resampler.init",
                message: "sample rates must be 1000…384000 Hz, not \(inputRate) → \(outputRate)")
        }
        guard (0...10).contains(quality) else {
            throw CodecError(
                .invalidArgument, operation: "Resampler.init", message: "quality must be 0…10, not \(quality)")
        }
        var status: Int32 = 0
        guard
            let state = speex_resampler_init(
                spx_uint32_t(channels), spx_uint32_t(inputRate), spx_uint32_t(outputRate), Int32(quality), &status)
        else {
            throw CodecError(
                Int(status) == RESAMPLER_ERR_ALLOC_FAILED ? .allocationFailed : .invalidArgument,
                operation: "speex_resampler_init", message: String(cString: speex_resampler_strerror(status)),
                status: status)
        }
        self.state = state
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    deinit {
        speex_resampler_destroy(state)
    }

    /// Resamples as much of `input` as fits in `output`. Both hold interleaved frames of
    /// `channels` channels. Returns how many input frames were consumed and how many output
    /// frames were produced; unconsumed input must be offered again on the next call.
    public mutating func process(
        _ input: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) -> (consumedFrames: Int, producedFrames: Int) {
        guard let inputBase = input.baseAddress, let outputBase = output.baseAddress else { return (0, 0) }
        var inputFrames = spx_uint32_t(input.count / channels)
        var outputFrames = spx_uint32_t(output.count / channels)
        // The only failures speexdsp reports here are overlapping buffers and a bad state,
        // both impossible through this API; the counts are valid either way.
        _ = speex_resampler_process_interleaved_float(state, inputBase, &inputFrames, outputBase, &outputFrames)
        return (Int(inputFrames), Int(outputFrames))
    }

    /// Resamples all of `input` through `scratch`, handing each piece of output to `emit` (a
    /// device thread's loop: neither allocates nor locks).
    public mutating func process(
        _ input: UnsafeBufferPointer<Float>, through scratch: UnsafeMutableBufferPointer<Float>,
        emit: (UnsafeBufferPointer<Float>) -> Void
    ) {
        var offset = 0
        while offset < input.count {
            let (consumed, produced) = process(UnsafeBufferPointer(rebasing: input[offset...]), into: scratch)
            emit(UnsafeBufferPointer(start: scratch.baseAddress, count: produced * channels))
            if consumed == 0 && produced == 0 { break }
            offset += consumed * channels
        }
    }

    /// Output frames for `inputFrames` input frames, rounded up: the size of an output buffer
    /// that always holds the result of converting that much input.
    public func outputCapacity(forInputFrames inputFrames: Int) -> Int {
        (inputFrames * outputRate + inputRate - 1) / inputRate + 1
    }

    /// The delay the filter adds, in input frames.
    public mutating func inputLatency() -> Int {
        Int(speex_resampler_get_input_latency(state))
    }

    /// Clears the filter's history, as if newly created.
    public mutating func reset() {
        speex_resampler_reset_mem(state)
    }
}
