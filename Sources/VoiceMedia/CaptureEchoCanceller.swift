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
/// **Two stages.** A frequency-domain Kalman filter (`KalmanEchoFilter`) takes off the echo it
/// can predict from the reference, in 5 ms blocks; it learns fast while it is uncertain and keeps
/// still while the near end talks. A suppressor (`ResidualEchoSuppressor`) then takes off, per
/// frequency, what the filter's own uncertainty says it left and the loudspeaker's distortion,
/// and lets through what the filter cannot explain: the near end. It costs 1 ms of delay.
///
/// **Standing aside.** Once nothing audible was played for a second, or the microphone has given
/// digital silence for a second (muted, or a silent file), or a second of audible playing
/// brought no echo the delay estimator could find (headphones), there is nothing to cancel: what was
/// captured goes out as it came, sample for sample and without the suppressor's 1 ms, and neither
/// stage runs; the filter only keeps the reference's past in step (a transform a block). The
/// output moves onto the cancelled signal over 20 ms once echo may be heard, and between the two
/// paths' timing over a block.
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
        /// Of those, frames it let through untouched: nothing audible played, or a silent microphone.
        public var framesPassedThrough = 0
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
        /// Times the filter found itself wrong (what it sent out held twice the microphone's
        /// power) and learned afresh: the echo path changed, or it had not learned it yet.
        public var filterRestarts = 0
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
        /// The most the suppressor attenuates any frequency, dB (0…90).
        public var residualSuppressionDB = 40
        /// The longest delay beyond the speaker's queue looked for, ms (0…1000; 0 looks for none).
        public var maximumEchoDelayMilliseconds = 500

        public init() {}
    }
    /// A reference frame quieter than this (RMS dBFS) holds no echo worth measuring.
    static let audibleReferenceDBFS: Float = -60
    /// A captured frame whose every sample is smaller than this is digital silence (-100 dBFS; a
    /// 16-bit microphone's least step is -90 dBFS): no echo and no voice in it.
    static let silentMicrophonePeak: Float = 1e-5
    /// Frames of nothing to do (nothing audible played, or a silent microphone) before the canceller
    /// stands aside: a second at 20 ms frames.
    public static let idleFramesBeforeStandingAside = 50
    /// Frames of audible reference without an echo found after which the path is taken to have
    /// none (headphones) and the canceller stands aside until one is found: the suppressor,
    /// uncertain of a path it cannot learn, would otherwise take the near end's voice off
    /// whenever both sides talk.
    public static let echolessFramesBeforeStandingAside = 50
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
    /// Samples the filter and the suppressor take at a time: 5 ms, or 2.5 ms for 2.5 ms frames.
    private let blockSamples: Int
    public let reference: PlaybackReference
    private let filter: KalmanEchoFilter
    private let suppressor: ResidualEchoSuppressor
    private let delayEstimator: EchoDelayEstimator?
    private let tailSamples: Int
    /// How far the reference is held back, samples.
    private var heldBackSamples = 0
    private let referenceFrame: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    /// The filter's output for a block, then what the suppressor is given.
    private let linearBlock: UnsafeMutableBufferPointer<Float>
    /// How much of the output is the cancelled signal rather than the captured one, 0…1, moving
    /// towards 1 while echo may be heard.
    private var suppression: Float = 0
    /// The frame count when the reference was last audible, and how many frames an echo lasts after.
    private var lastAudibleFrame = Int.min / 2
    private let echoFrames: Int
    private var capturedPower = 0.0
    private var outputPower = 0.0
    private var framesCancelled = 0
    private var framesWithEcho = 0
    private var framesPassedThrough = 0
    /// Captured frames in a row that were digital silence.
    private var silentFrames = 0
    /// Frames with the reference audible since the delay estimator last had no echo to report.
    private var echolessFrames = 0
    /// Whether the last frame went out untouched, and the last hop of what was captured, for the
    /// seam between the two paths.
    private var passedThrough = true
    private let lastHop: UnsafeMutableBufferPointer<Float>

    /// - Parameters:
    ///   - frameSamples: samples per engine frame (960 = 20 ms).
    ///   - maximumQueuedSamples: the most audio that may wait between the engine and the speaker,
    ///     or be held captured, when a frame is cancelled: the reference reaches back that far.
    public init(
        frameSamples: Int, configuration: Configuration = Configuration(), maximumQueuedSamples: Int = 24_000
    ) throws(CodecError) {
        let operation = "CaptureEchoCanceller.init"
        guard frameSamples > 0, frameSamples % Self.shortBlockSamples == 0 else {
            throw .invalidSetting(
                operation, setting: "frameSamples", value: "\(frameSamples)",
                allowed: "a multiple of \(Self.shortBlockSamples) samples (2.5 ms)")
        }
        guard (1...1_000).contains(configuration.tailMilliseconds) else {
            throw .invalidSetting(
                operation, setting: "tailMilliseconds", value: "\(configuration.tailMilliseconds)",
                allowed: "1…1000 ms")
        }
        guard (0...90).contains(configuration.residualSuppressionDB) else {
            throw .invalidSetting(
                operation, setting: "residualSuppressionDB", value: "\(configuration.residualSuppressionDB)",
                allowed: "0…90 dB")
        }
        let block = frameSamples % Self.blockSamples == 0 ? Self.blockSamples : Self.shortBlockSamples
        self.frameSamples = frameSamples
        self.configuration = configuration
        blockSamples = block
        let tail = configuration.tailMilliseconds * engineSampleRate / 1_000
        guard let filter = KalmanEchoFilter(blockSamples: block, partitions: (tail + block - 1) / block),
            let suppressor = ResidualEchoSuppressor(
                blockSamples: block, minimumGainDB: configuration.residualSuppressionDB)
        else {
            throw .invalidSetting(operation, setting: "block", value: "\(block)", allowed: "240 or 120 samples")
        }
        self.filter = filter
        self.suppressor = suppressor
        guard (0...1_000).contains(configuration.maximumEchoDelayMilliseconds) else {
            throw .invalidSetting(
                operation, setting: "maximumEchoDelayMilliseconds",
                value: "\(configuration.maximumEchoDelayMilliseconds)", allowed: "0…1000 ms")
        }
        let maximumDelay = configuration.maximumEchoDelayMilliseconds * engineSampleRate / 1_000
        delayEstimator =
            maximumDelay > 0 && frameSamples % EchoDelayEstimator.decimation == 0
            ? EchoDelayEstimator(frameSamples: frameSamples, maximumDelaySamples: maximumDelay) : nil
        tailSamples = tail
        reference = PlaybackReference(minimumSamples: maximumQueuedSamples + maximumDelay + 2 * frameSamples)
        referenceFrame = .allocate(count: frameSamples, filledWith: 0)
        output = .allocate(count: frameSamples, filledWith: 0)
        linearBlock = .allocate(count: block, filledWith: 0)
        lastHop = .allocate(count: suppressor.hopSamples, filledWith: 0)
        echoFrames = (tail + frameSamples - 1) / frameSamples + 1
    }

    deinit {
        referenceFrame.deallocate()
        output.deallocate()
        linearBlock.deallocate()
        lastHop.deallocate()
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
        if delayEstimator != nil, delayEstimator?.delaySamples == nil {
            if referenceAudible { echolessFrames += 1 }
        } else {
            echolessFrames = 0
        }
        let echoless = echolessFrames > Self.echolessFramesBeforeStandingAside
        let target: Float = framesCancelled - lastAudibleFrame <= echoFrames ? 1 : 0
        silentFrames = Self.isSilent(captured) ? silentFrames + 1 : 0
        // Standing aside only once it has had nothing to do for a while, so that the pauses of speech
        // do not move the output between the two paths' timing.
        let idle = framesCancelled - lastAudibleFrame > max(echoFrames, Self.idleFramesBeforeStandingAside)
        if idle && suppression == 0 || silentFrames > Self.idleFramesBeforeStandingAside || echoless {
            passThrough(captured)
            if referenceAudible { measure(captured: captured) }
            return UnsafeBufferPointer(output)
        }
        if passedThrough {
            suppressor.resume(after: UnsafeBufferPointer(lastHop))
        }
        let block = blockSamples
        // 20 ms from one path to the other, whatever the block.
        let step = Float(block) / Float(engineSampleRate / 50)
        for start in stride(from: 0, to: frameSamples, by: block) {
            let range = start..<(start + block)
            let input = UnsafeBufferPointer(rebasing: captured[range])
            filter.process(
                captured: input, reference: UnsafeBufferPointer(rebasing: referenceFrame[range]), error: linearBlock)
            suppressor.follow(filter)
            let fromShare = suppression
            suppression = target > suppression ? min(target, suppression + step) : max(target, suppression - step)
            for index in 0..<block {
                let share = fromShare + (suppression - fromShare) * Float(index + 1) / Float(block)
                linearBlock[index] = (1 - share) * input[index] + share * linearBlock[index]
            }
            suppressor.process(
                UnsafeBufferPointer(linearBlock), share: suppression,
                into: UnsafeMutableBufferPointer(rebasing: output[range]))
        }
        if passedThrough {
            // The suppressor's output is a hop late: move onto it from the captured frame over a block.
            for index in 0..<block {
                let share = Float(index + 1) / Float(block)
                output[index] = (1 - share) * captured[index] + share * output[index]
            }
            passedThrough = false
        }
        keepLastHop(of: captured)
        framesCancelled += 1
        if referenceAudible { measure(captured: captured) }
        return UnsafeBufferPointer(output)
    }

    private func keepLastHop(of captured: UnsafeBufferPointer<Float>) {
        let hop = lastHop.count
        for index in 0..<hop { lastHop[index] = captured[frameSamples - hop + index] }
    }

    /// Whether every sample of `captured` is below the silent microphone's peak.
    private static func isSilent(_ captured: UnsafeBufferPointer<Float>) -> Bool {
        for sample in captured where abs(sample) >= silentMicrophonePeak { return false }
        return true
    }

    /// Lets `captured` out as it came, keeping the filter's reference in step; after a cancelled
    /// frame, moves from the suppressor's timing (a hop late) onto it over a block.
    private func passThrough(_ captured: UnsafeBufferPointer<Float>) {
        for start in stride(from: 0, to: frameSamples, by: blockSamples) {
            filter.follow(reference: UnsafeBufferPointer(rebasing: referenceFrame[start..<(start + blockSamples)]))
        }
        _ = output.initialize(from: captured)
        if !passedThrough {
            // From what the suppressor's path would have sent, a hop late, onto the frame as it came.
            let hop = lastHop.count
            for index in 0..<blockSamples {
                let late = index < hop ? lastHop[index] : captured[index - hop]
                let share = Float(index + 1) / Float(blockSamples)
                output[index] = (1 - share) * late + share * captured[index]
            }
        }
        keepLastHop(of: captured)
        passedThrough = true
        suppression = 0
        framesCancelled += 1
        framesPassedThrough += 1
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
        filter.reset()
    }

    /// Forgets the echo path learned, e.g. after the speaker or microphone changed.
    public func reset() {
        filter.reset()
        suppressor.reset()
        delayEstimator?.reset()
        heldBackSamples = 0
        echolessFrames = 0
        capturedPower = 0
        outputPower = 0
    }

    public var statistics: Statistics {
        var statistics = Statistics()
        statistics.framesCancelled = framesCancelled
        statistics.framesWithEcho = framesWithEcho
        statistics.framesPassedThrough = framesPassedThrough
        if framesWithEcho >= Self.framesBeforeReporting, capturedPower > 0 {
            statistics.echoReturnLossEnhancementDB = 10 * log10(capturedPower / max(outputPower, capturedPower * 1e-12))
        }
        statistics.echoDelayMilliseconds = delayEstimator?.delaySamples.map {
            Double($0) * 1_000 / Double(engineSampleRate)
        }
        statistics.referenceHeldBackMilliseconds = Double(heldBackSamples) * 1_000 / Double(engineSampleRate)
        statistics.filterRestarts = filter.restarts
        statistics.gameMixSamples = reference.gameSamplesMixed
        statistics.gameMixSamplesDropped = reference.gameSamplesDropped
        return statistics
    }

    private func measure(captured: UnsafeBufferPointer<Float>) {
        framesWithEcho += 1
        capturedPower = Self.forgetting * capturedPower + Double(LevelMeter.meanPower(of: captured))
        outputPower = Self.forgetting * outputPower + Double(LevelMeter.meanPower(of: UnsafeBufferPointer(output)))
    }

    /// The filter's block, and the one for frames of 2.5 ms.
    static let blockSamples = 240
    static let shortBlockSamples = 120
}
