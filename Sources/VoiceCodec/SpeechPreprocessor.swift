import CVoiceSpeexDSP
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Cleans up captured speech before it is encoded: noise suppression, automatic gain control,
/// and optional dereverberation.
/// Wraps speexdsp's preprocessor and frees it exactly once.
///
/// speexdsp's voice activity detector stays off: it flags nearly every frame as speech on this
/// platform, so speech detection belongs elsewhere.
///
/// Thread contract: one thread at a time; every method touching the C state is `mutating`, and
/// nothing else refers to the state or the scratch buffer, so moving the value between threads is
/// safe (hence `@unchecked Sendable`). `process` neither allocates nor locks when it succeeds:
/// speexdsp works on 16-bit samples, and the conversion goes through a buffer made at setup.
public struct SpeechPreprocessor: ~Copyable, @unchecked Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Samples per frame, the size of every `process` call (960 = 20 ms at 48 kHz).
        public var frameSize: Int
        public var sampleRate: Int
        public var denoise: Bool
        /// How far noise is pushed down, in dB (0…60). speexdsp's default is 15.
        public var noiseSuppressionDB: Int
        public var automaticGainControl: Bool
        /// The speech level AGC steers towards, in dB relative to full scale (-40…0).
        public var agcTargetDBFS: Double
        /// The most AGC may amplify, in dB (0…60); limits how far room noise is boosted in pauses.
        public var agcMaxGainDB: Int
        public var dereverb: Bool

        public init(
            frameSize: Int = FrameDuration.ms20.engineFrames,
            sampleRate: Int = engineSampleRate,
            denoise: Bool = true,
            noiseSuppressionDB: Int = 15,
            automaticGainControl: Bool = false,
            agcTargetDBFS: Double = -18,
            agcMaxGainDB: Int = 30,
            dereverb: Bool = false
        ) {
            self.frameSize = frameSize
            self.sampleRate = sampleRate
            self.denoise = denoise
            self.noiseSuppressionDB = noiseSuppressionDB
            self.automaticGainControl = automaticGainControl
            self.agcTargetDBFS = agcTargetDBFS
            self.agcMaxGainDB = agcMaxGainDB
            self.dereverb = dereverb
        }

        /// Throws `.invalidArgument` naming the first setting out of range.
        public func validate(operation: String = "SpeechPreprocessor.Configuration.validate") throws(CodecError) {
            guard (8_000...48_000).contains(sampleRate) else {
                throw .invalidSetting(
                    operation, setting: "sampleRate", value: "\(sampleRate) Hz", allowed: "8000…48000 Hz")
            }
            // speexdsp sizes its FFT from the frame; beyond 100 ms it is no longer a speech frame.
            let maximumFrame = sampleRate / 10
            guard (1...maximumFrame).contains(frameSize) else {
                throw .invalidSetting(
                    operation, setting: "frameSize", value: "\(frameSize)", allowed: "1…\(maximumFrame) samples")
            }
            guard (0...60).contains(noiseSuppressionDB) else {
                throw .invalidSetting(
                    operation, setting: "noiseSuppressionDB", value: "\(noiseSuppressionDB)", allowed: "0…60")
            }
            guard (-40...0).contains(agcTargetDBFS) else {
                throw .invalidSetting(operation, setting: "agcTargetDBFS", value: "\(agcTargetDBFS)", allowed: "-40…0")
            }
            guard (0...60).contains(agcMaxGainDB) else {
                throw .invalidSetting(operation, setting: "agcMaxGainDB", value: "\(agcMaxGainDB)", allowed: "0…60")
            }
        }
    }

    public private(set) var configuration: Configuration
    private let state: OpaquePointer
    private let scratch: UnsafeMutableBufferPointer<Int16>

    public init(_ configuration: Configuration = Configuration()) throws(CodecError) {
        try configuration.validate(operation: "SpeechPreprocessor.init")
        guard let state = speex_preprocess_state_init(Int32(configuration.frameSize), Int32(configuration.sampleRate))
        else {
            throw CodecError(
                .allocationFailed, operation: "speex_preprocess_state_init",
                message: "speexdsp could not allocate a preprocessor")
        }
        Self.apply(configuration, to: state)
        self.state = state
        self.configuration = configuration
        self.scratch = .allocate(capacity: configuration.frameSize)
        scratch.initialize(repeating: 0)
    }

    deinit {
        speex_preprocess_state_destroy(state)
        scratch.deallocate()
    }

    /// Changes the settings of a running preprocessor. The frame size and rate stay as created.
    public mutating func reconfigure(_ newConfiguration: Configuration) throws(CodecError) {
        try newConfiguration.validate(operation: "SpeechPreprocessor.reconfigure")
        guard newConfiguration.frameSize == configuration.frameSize,
            newConfiguration.sampleRate == configuration.sampleRate
        else {
            throw CodecError(
                .invalidArgument, operation: "SpeechPreprocessor.reconfigure",
                message: "frameSize and sampleRate are fixed at creation (\(configuration.frameSize) samples at "
                    + "\(configuration.sampleRate) Hz); create a new preprocessor to change them")
        }
        Self.apply(newConfiguration, to: state)
        configuration = newConfiguration
    }

    private static func apply(_ configuration: Configuration, to state: OpaquePointer) {
        // speex_preprocess_ctl only fails for unknown requests; these are all known ones.
        func set(_ request: Int32, _ value: Int32) {
            var value = value
            _ = speex_preprocess_ctl(state, request, &value)
        }
        // SPEEX_PREPROCESS_SET_VAD is never sent: the VAD is off by default, and speexdsp prints a
        // warning to stderr whenever the request is made, even to turn it off.
        set(SPEEX_PREPROCESS_SET_DENOISE, configuration.denoise ? 1 : 0)
        // speexdsp takes suppression as a negative gain.
        set(SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, Int32(-configuration.noiseSuppressionDB))
        set(SPEEX_PREPROCESS_SET_AGC, configuration.automaticGainControl ? 1 : 0)
        // The AGC level is a 16-bit RMS amplitude.
        var level = Float(32_768 * pow(10, configuration.agcTargetDBFS / 20))
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level)
        set(SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, Int32(configuration.agcMaxGainDB))
        set(SPEEX_PREPROCESS_SET_DEREVERB, configuration.dereverb ? 1 : 0)
    }

    /// Processes one frame of `configuration.frameSize` mono samples in place.
    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) throws(CodecError) {
        try checkFrame(frame, operation: "SpeechPreprocessor.process")
        run(frame)
    }

    @inline(__always)
    private func checkFrame(_ frame: UnsafeMutableBufferPointer<Float>, operation: String) throws(CodecError) {
        guard frame.count == configuration.frameSize else {
            throw CodecError(
                .invalidArgument, operation: operation,
                message: "got \(frame.count) samples; this preprocessor takes frames of exactly "
                    + "\(configuration.frameSize)")
        }
    }

    @inline(__always)
    private func run(_ frame: UnsafeMutableBufferPointer<Float>) {
        SampleConversion.convert(UnsafeBufferPointer(frame), to: scratch)
        // The return value is the VAD decision, which is off.
        _ = speex_preprocess_run(state, scratch.baseAddress!)
        SampleConversion.convert(UnsafeBufferPointer(scratch), to: frame)
    }
}
