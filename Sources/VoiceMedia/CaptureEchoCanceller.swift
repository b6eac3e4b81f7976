import VoiceCodec
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The microphone's echo canceller as the engine runs it: every captured frame has the echo of
/// what the speaker played (the engine's mix and the game's own, see `PlaybackReference`)
/// removed, before any send pipeline sees it.
///
/// **Alignment.** The reference for a captured frame is what was playing while it was captured,
/// as far as the engine knows: the audio written to the speaker, less what still waits in the
/// speaker's queue, less the frames captured after it that the engine already holds. What it
/// cannot know (the devices' own buffers, the air between speaker and microphone, the room)
/// is a delay the adaptive filter models, so its tail covers it. Where the echo comes too late for
/// the tail to hold a room after it (a sound server's buffers can hold hundreds of milliseconds),
/// `EchoDelayEstimator` finds it and the reference is held back by as much, less a margin, so that
/// the tail covers the room rather than the delay; the filter then learns the path afresh.
///
/// **Residual echo.** speexdsp's linear filter leaves the echo the speaker's distortion and the
/// filter's misadjustment make; speexdsp's preprocessor finds what remains, and how much to take
/// off, while the far end talks (less while both talk). It hands each block back a block late, so
/// its output is not used: how much it took off a block is the gain applied to the next (5 ms
/// later), and the canceller adds no delay. Noise is left alone (the send pipeline's denoise does
/// that). While nothing audible was played for a tail's length, what was captured goes out as it
/// came (the filter still runs, and its DC notch alone would cost clean speech 0.05 PESQ-WB); the
/// output moves from one to the other over 20 ms.
///
/// Its echo return loss enhancement is measured over frames where the reference is audible:
/// what came in against what went out, smoothed over a few seconds. Near-end speech over the far
/// end's lowers the figure, so it reads as "at least".
///
/// One thread at a time (the engine's), except `reference.addGameMix`. Preallocated: `cancel`
/// and `played` neither allocate nor lock.
public final class CaptureEchoCanceller: @unchecked Sendable {
    public struct Statistics: Sendable, Hashable, Codable {
        /// Captured frames the canceller processed.
        public var framesCancelled = 0
        /// Of those, frames with the reference audible, over which ERLE is measured.
        public var framesWithEcho = 0
        /// Echo return loss enhancement, dB; nil until half a second of reference was heard.
        public var echoReturnLossEnhancementDB: Double?
        /// How much later than the engine expects the echo comes (the devices' buffers and the
        /// air), ms; nil until found. The reference is held back by this, less a margin, when the
        /// tail would not hold a room after it.
        public var echoDelayMilliseconds: Double?
        /// How far the reference is held back, ms.
        public var referenceHeldBackMilliseconds: Double = 0
        /// Samples of the game's own mix added to the reference, and those dropped because the
        /// game handed in more than the speaker played.
        public var gameMixSamples = 0
        public var gameMixSamplesDropped = 0

        public init() {}
    }

    public struct Configuration: Sendable, Hashable {
        /// How long an echo the filter models, 1…1000 ms: the devices' buffers, the air and the
        /// room's reverberation.
        public var tailMilliseconds = 250
        /// Samples processed at a time, dividing the engine frame; nil for a whole frame. The
        /// residual suppression's gain follows the echo a block late: 5 ms by default, for about
        /// twice the work of whole 20 ms frames.
        public var blockSamples: Int? = 240
        /// Attenuation of residual echo while only the far end talks, and while both do, dB (0…90).
        public var residualSuppressionDB = 40
        public var residualSuppressionActiveDB = 15
        /// The longest delay beyond the speaker's queue looked for, ms (0…1000; 0 looks for none).
        public var maximumEchoDelayMilliseconds = 500

        public init() {}
    }
    /// A reference frame quieter than this (RMS dBFS) holds no echo worth measuring.
    static let audibleReferenceDBFS: Float = -60
    /// Frames of audible reference before ERLE is reported.
    static let framesBeforeReporting = 25
    /// How slowly the ERLE estimate forgets, per frame of audible reference (about 2 s at 20 ms).
    static let forgetting = 0.98
    /// How much of the tail is left before the echo's direct path when the reference is held back.
    static let heldBackMarginSamples = 960
    /// How much of the tail a room's reverberation needs after the direct path (100 ms).
    static let roomSamples = 4_800

    public let frameSamples: Int
    public let configuration: Configuration
    private let blockSamples: Int
    public let reference: PlaybackReference
    private var canceller: EchoCanceller
    private let delayEstimator: EchoDelayEstimator?
    private let tailSamples: Int
    /// How far the reference is held back, samples.
    private var heldBackSamples = 0
    private var suppressor: SpeechPreprocessor
    private let referenceFrame: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    /// The linear filter's output for the block being processed and for the block before, and the
    /// preprocessor's output (the block before, suppressed).
    private var linearBlock: UnsafeMutableBufferPointer<Float>
    private var previousLinearBlock: UnsafeMutableBufferPointer<Float>
    private let suppressedBlock: UnsafeMutableBufferPointer<Float>
    /// How much of the output is the cancelled signal rather than the captured one, 0…1, moving
    /// towards 1 while echo may be heard.
    private var suppression: Float = 0
    /// The residual suppression's gain at the end of the last block.
    private var gain: Float = 1
    /// The frame count when the reference was last audible, and how many frames an echo lasts after.
    private var lastAudibleFrame = Int.min / 2
    private let echoFrames: Int
    private var capturedPower = 0.0
    private var outputPower = 0.0
    private var framesCancelled = 0
    private var framesWithEcho = 0

    /// - Parameters:
    ///   - frameSamples: samples per engine frame (960 = 20 ms).
    ///   - maximumQueuedSamples: the most audio that may wait between the engine and the speaker,
    ///     or be held captured, when a frame is cancelled: the reference reaches back that far.
    public init(
        frameSamples: Int, configuration: Configuration = Configuration(), maximumQueuedSamples: Int = 24_000
    ) throws(CodecError) {
        let block = configuration.blockSamples ?? frameSamples
        guard block > 0, frameSamples % block == 0 else {
            throw .invalidSetting(
                "CaptureEchoCanceller.init", setting: "blockSamples", value: "\(block)",
                allowed: "a divisor of the \(frameSamples)-sample frame")
        }
        self.frameSamples = frameSamples
        self.configuration = configuration
        blockSamples = block
        canceller = try EchoCanceller(frameSize: block, tailMilliseconds: configuration.tailMilliseconds)
        suppressor = try SpeechPreprocessor(
            .init(
                frameSize: block, denoise: true, noiseSuppressionDB: 0, automaticGainControl: false,
                residualEchoSuppressionDB: configuration.residualSuppressionDB,
                residualEchoSuppressionActiveDB: configuration.residualSuppressionActiveDB))
        guard (0...1_000).contains(configuration.maximumEchoDelayMilliseconds) else {
            throw .invalidSetting(
                "CaptureEchoCanceller.init", setting: "maximumEchoDelayMilliseconds",
                value: "\(configuration.maximumEchoDelayMilliseconds)", allowed: "0…1000 ms")
        }
        let maximumDelay = configuration.maximumEchoDelayMilliseconds * engineSampleRate / 1_000
        delayEstimator =
            maximumDelay > 0 && frameSamples % EchoDelayEstimator.decimation == 0
            ? EchoDelayEstimator(frameSamples: frameSamples, maximumDelaySamples: maximumDelay) : nil
        tailSamples = configuration.tailMilliseconds * engineSampleRate / 1_000
        reference = PlaybackReference(minimumSamples: maximumQueuedSamples + maximumDelay + 2 * frameSamples)
        referenceFrame = .allocate(capacity: frameSamples)
        referenceFrame.initialize(repeating: 0)
        output = .allocate(capacity: frameSamples)
        output.initialize(repeating: 0)
        linearBlock = .allocate(capacity: block)
        linearBlock.initialize(repeating: 0)
        previousLinearBlock = .allocate(capacity: block)
        previousLinearBlock.initialize(repeating: 0)
        suppressedBlock = .allocate(capacity: block)
        suppressedBlock.initialize(repeating: 0)
        echoFrames = (configuration.tailMilliseconds * engineSampleRate / 1_000 + frameSamples - 1) / frameSamples + 1
    }

    deinit {
        referenceFrame.deallocate()
        output.deallocate()
        linearBlock.deallocate()
        previousLinearBlock.deallocate()
        suppressedBlock.deallocate()
    }

    /// Appends what the speaker was just given to the reference.
    public func played(_ samples: UnsafeBufferPointer<Float>) {
        reference.played(samples)
    }

    /// Returns `captured` (one frame) with the echo removed, valid until the next call.
    /// - Parameter queuedSamples: audio written to the speaker but not played yet, plus the frames
    ///   captured after this one that the engine already holds, in samples.
    public func cancel(_ captured: UnsafeBufferPointer<Float>, queuedSamples: Int) -> UnsafeBufferPointer<Float> {
        guard captured.count == frameSamples else { return captured }
        let end = reference.written - max(0, queuedSamples)
        reference.copy(endingAt: end, into: referenceFrame)
        if let delayEstimator {
            delayEstimator.process(reference: UnsafeBufferPointer(referenceFrame), captured: captured)
            followEchoDelay(delayEstimator.delaySamples)
        }
        // The filter's reference is the same frame unless it is held back.
        if heldBackSamples > 0 { reference.copy(endingAt: end - heldBackSamples, into: referenceFrame) }
        let referenceAudible = LevelMeter.rmsDBFS(of: UnsafeBufferPointer(referenceFrame)) > Self.audibleReferenceDBFS
        if referenceAudible { lastAudibleFrame = framesCancelled }
        let target: Float = framesCancelled - lastAudibleFrame <= echoFrames ? 1 : 0
        let block = blockSamples
        // 20 ms from one path to the other, whatever the block.
        let step = Float(block) / Float(engineSampleRate / 50)
        do {
            for start in stride(from: 0, to: frameSamples, by: block) {
                let range = start..<(start + block)
                let output = UnsafeMutableBufferPointer(rebasing: output[range])
                try canceller.cancel(
                    captured: UnsafeBufferPointer(rebasing: captured[range]),
                    played: UnsafeBufferPointer(rebasing: referenceFrame[range]), into: linearBlock)
                // The preprocessor hands back the block before, suppressed: how much it took off
                // that block is the gain for this one, so that nothing waits for it.
                _ = suppressedBlock.update(fromContentsOf: linearBlock)
                try suppressor.process(suppressedBlock, suppressingResidualEchoOf: canceller)
                let before = LevelMeter.sumOfSquares(UnsafeBufferPointer(previousLinearBlock))
                let found =
                    before > Self.silentBlockEnergy
                    ? min(1, (LevelMeter.sumOfSquares(UnsafeBufferPointer(suppressedBlock)) / before).squareRoot())
                    : 1
                let (fromShare, fromGain) = (suppression, gain)
                suppression = target > suppression ? min(target, suppression + step) : max(target, suppression - step)
                gain = found
                let input = UnsafeBufferPointer(rebasing: captured[range])
                for index in 0..<block {
                    let position = Float(index + 1) / Float(block)
                    let share = fromShare + (suppression - fromShare) * position
                    let blockGain = fromGain + (gain - fromGain) * position
                    output[index] = (1 - share) * input[index] + share * blockGain * linearBlock[index]
                }
                swap(&linearBlock, &previousLinearBlock)
            }
        } catch {
            // Sizes are checked above and at creation; nothing else fails.
            return captured
        }
        framesCancelled += 1
        if referenceAudible { measure(captured: captured) }
        return UnsafeBufferPointer(output)
    }

    /// Holds the reference back when the echo comes too late for the tail to hold the room after
    /// it, or earlier than the reference as held back; the filter then starts over.
    private func followEchoDelay(_ delay: Int?) {
        guard let delay, delay < heldBackSamples || delay - heldBackSamples > tailSamples - Self.roomSamples else {
            return
        }
        let heldBack = max(0, delay - Self.heldBackMarginSamples)
        guard heldBack != heldBackSamples else { return }
        heldBackSamples = heldBack
        canceller.reset()
    }

    /// Forgets the echo path learned, e.g. after the speaker or microphone changed.
    public func reset() {
        canceller.reset()
        delayEstimator?.reset()
        heldBackSamples = 0
        capturedPower = 0
        outputPower = 0
    }

    public var statistics: Statistics {
        var statistics = Statistics()
        statistics.framesCancelled = framesCancelled
        statistics.framesWithEcho = framesWithEcho
        if framesWithEcho >= Self.framesBeforeReporting, capturedPower > 0 {
            statistics.echoReturnLossEnhancementDB = 10 * log10(capturedPower / max(outputPower, capturedPower * 1e-12))
        }
        statistics.echoDelayMilliseconds = delayEstimator?.delaySamples.map {
            Double($0) * 1_000 / Double(engineSampleRate)
        }
        statistics.referenceHeldBackMilliseconds = Double(heldBackSamples) * 1_000 / Double(engineSampleRate)
        statistics.gameMixSamples = reference.gameSamplesMixed
        statistics.gameMixSamplesDropped = reference.gameSamplesDropped
        return statistics
    }

    private func measure(captured: UnsafeBufferPointer<Float>) {
        framesWithEcho += 1
        capturedPower = Self.forgetting * capturedPower + Double(LevelMeter.meanPower(of: captured))
        outputPower = Self.forgetting * outputPower + Double(LevelMeter.meanPower(of: UnsafeBufferPointer(output)))
    }

    /// Below this (a block's sum of squares, about -100 dBFS) there is nothing to suppress.
    static let silentBlockEnergy: Float = 1e-7
}
