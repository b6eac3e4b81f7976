import CVoiceSpeexDSP
import VoiceCore

/// Removes the far end's voice, played on the speaker and picked up again by the microphone,
/// from the captured signal. Wraps speexdsp's adaptive echo canceller and frees it exactly once.
///
/// Feed it every frame in step: the frame just captured and the frame that was played while it
/// was captured. For the echo that remains, pass the output through
/// `SpeechPreprocessor.process(_:suppressingResidualEchoOf:)`.
///
/// Thread contract: one thread at a time; every method touching the C state is `mutating`, and
/// nothing else keeps the state or the scratch buffers (a preprocessor borrows the state only for
/// the length of one call), so moving the value between threads is safe (hence
/// `@unchecked Sendable`). `cancel` neither allocates nor locks when it succeeds.
public struct EchoCanceller: ~Copyable, @unchecked Sendable {
    /// Samples per frame; every `cancel` call takes exactly this many of each signal.
    public let frameSize: Int
    public let sampleRate: Int
    /// How much echo path the adaptive filter models, in samples.
    public let filterLength: Int
    let state: OpaquePointer
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// - Parameters:
    ///   - frameSize: samples per frame (960 = 20 ms at 48 kHz).
    ///   - tailMilliseconds: the longest echo to cancel, from speaker to microphone including room
    ///     reverberation (1…1000 ms). 100–200 ms suits a room; longer costs CPU and converges slower.
    ///   - sampleRate: 8000…48000 Hz.
    public init(
        frameSize: Int = FrameDuration.ms20.engineFrames,
        tailMilliseconds: Int = 200,
        sampleRate: Int = engineSampleRate
    ) throws(CodecError) {
        let operation = "EchoCanceller.init"
        guard (8_000...48_000).contains(sampleRate) else {
            throw .invalidSetting(operation, setting: "sampleRate", value: "\(sampleRate) Hz", allowed: "8000…48000 Hz")
        }
        let maximumFrame = sampleRate / 10
        guard (1...maximumFrame).contains(frameSize) else {
            throw .invalidSetting(
                operation, setting: "frameSize", value: "\(frameSize)", allowed: "1…\(maximumFrame) samples")
        }
        guard (1...1_000).contains(tailMilliseconds) else {
            throw .invalidSetting(
                operation, setting: "tailMilliseconds", value: "\(tailMilliseconds)", allowed: "1…1000 ms")
        }
        let filterLength = max(frameSize, sampleRate * tailMilliseconds / 1_000)
        guard let state = speex_echo_state_init(Int32(frameSize), Int32(filterLength)) else {
            throw CodecError(
                .allocationFailed, operation: "speex_echo_state_init",
                message: "speexdsp could not allocate an echo canceller")
        }
        var rate = Int32(sampleRate)
        // Sets the canceller's notion of time (adaptation and its noise estimate); cannot fail.
        _ = speex_echo_ctl(state, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        self.state = state
        self.frameSize = frameSize
        self.sampleRate = sampleRate
        self.filterLength = filterLength
        self.scratch = .allocate(capacity: frameSize * 3)
        scratch.initialize(repeating: 0)
    }

    deinit {
        speex_echo_state_destroy(state)
        scratch.deallocate()
    }

    /// Writes `captured` minus the estimated echo of `played` into `output`. All three hold
    /// exactly `frameSize` mono samples; `output` may be the same memory as `captured`.
    public mutating func cancel(
        captured: UnsafeBufferPointer<Float>,
        played: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws(CodecError) {
        guard captured.count == frameSize, played.count == frameSize, output.count == frameSize else {
            throw CodecError(
                .invalidArgument, operation: "EchoCanceller.cancel",
                message: "got \(captured.count) captured, \(played.count) played and \(output.count) output samples; "
                    + "each must be exactly one frame of \(frameSize)")
        }
        let capturedScratch = UnsafeMutableBufferPointer(rebasing: scratch[0..<frameSize])
        let playedScratch = UnsafeMutableBufferPointer(rebasing: scratch[frameSize..<2 * frameSize])
        let outputScratch = UnsafeMutableBufferPointer(rebasing: scratch[2 * frameSize..<3 * frameSize])
        SampleConversion.convert(captured, to: capturedScratch)
        SampleConversion.convert(played, to: playedScratch)
        speex_echo_cancellation(
            state, capturedScratch.baseAddress!, playedScratch.baseAddress!, outputScratch.baseAddress!)
        SampleConversion.convert(UnsafeBufferPointer(outputScratch), to: output)
    }

    /// Forgets the learned echo path, e.g. after the output device changed.
    public mutating func reset() {
        speex_echo_state_reset(state)
    }
}
