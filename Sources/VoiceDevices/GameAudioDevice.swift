import VoiceCodec
import VoiceCore

/// Audio that a game's own audio system moves: the game calls `process` from its audio callback
/// with what its microphone captured and room for what its speaker plays, at its own rate (44.1
/// or 48 kHz …), mono or stereo, in blocks of whatever size its system uses. To the engine this is
/// a real-time microphone (`input`) and speaker (`output`) whose device thread is the game's.
///
/// Blocks are reblocked through rings and resampled here, so the engine keeps its 48 kHz frames
/// on its own thread. Everything is allocated in `init`: `process` and `convertGameMix` neither
/// allocate nor lock nor wait, so a game's audio callback may call them.
///
/// Thread contract (the reason for `@unchecked Sendable`): `process` and `convertGameMix` are
/// called by one thread at a time (the game's audio thread); the engine reads `input` and writes
/// `output` from its own thread; the rings between them are single-producer / single-consumer.
public final class GameAudioDevice: @unchecked Sendable {
    /// The game's frame rate.
    public let sampleRate: Int
    /// Interleaved channels of the game's blocks, both ways: 1 or 2.
    public let channels: Int
    /// The largest block `process` converts at once; larger blocks are taken in pieces of it.
    public let maximumBlockFrames: Int
    public let input: GameAudioInput
    public let output: GameAudioOutput

    /// The rates a game's audio may run at.
    public static let sampleRates = 8_000...192_000
    /// The ring each way: 200 ms of 48 kHz frames, room for the game's largest blocks and a stall.
    static let ringFrames = 9_600
    /// 48 kHz frames taken from the speaker's ring per conversion to another rate: 2 ms, so that
    /// at most that much more waits in the staging buffer.
    static let playbackChunkFrames = 96

    private let captureMono: UnsafeMutableBufferPointer<Float>
    private let captureEngine: UnsafeMutableBufferPointer<Float>
    private var captureResampler: Resampler?
    private let playbackChunk: UnsafeMutableBufferPointer<Float>
    private let staged: UnsafeMutableBufferPointer<Float>
    private var stagedFrames = 0
    private var playbackResampler: Resampler?
    private let mixEngine: UnsafeMutableBufferPointer<Float>
    private var mixResampler: Resampler?

    /// - Parameters:
    ///   - blockFrames: the block size the game's audio system uses, when it always uses one: the
    ///     engine then mixes each frame just before a block takes it. 0 when blocks vary.
    ///   - frameSamples: the engine's frame at 48 kHz: it sends each as soon as a block completes it.
    public init(
        sampleRate: Int, channels: Int, blockFrames: Int = 0, frameSamples: Int = 960, maximumBlockFrames: Int = 4_096
    ) throws(AudioDeviceError) {
        guard Self.sampleRates.contains(sampleRate) else {
            throw AudioDeviceError(
                .invalidArgument, device: "game audio",
                reason: "the sample rate \(sampleRate) Hz is outside \(Self.sampleRates.lowerBound)…"
                    + "\(Self.sampleRates.upperBound) Hz; give the rate the game's audio system runs at")
        }
        guard channels == 1 || channels == 2 else {
            throw AudioDeviceError(
                .invalidArgument, device: "game audio", reason: "channels is \(channels); give 1 (mono) or 2 (stereo)")
        }
        guard (0...maximumBlockFrames).contains(blockFrames) else {
            throw AudioDeviceError(
                .invalidArgument, device: "game audio",
                reason: "the block size \(blockFrames) is outside 0…\(maximumBlockFrames) frames (0: blocks vary)")
        }
        self.sampleRate = sampleRate
        self.channels = channels
        self.maximumBlockFrames = maximumBlockFrames
        input = GameAudioInput(ringFrames: Self.ringFrames, frameSamples: max(frameSamples, 1))
        output = GameAudioOutput(
            channels: channels, ringFrames: Self.ringFrames,
            cadence: blockFrames > 0 ? PeriodCadence(periodFrames: blockFrames, sampleRate: sampleRate) : nil)
        captureMono = .allocate(capacity: maximumBlockFrames)
        captureMono.initialize(repeating: 0)
        let chunk = Self.playbackChunkFrames
        if sampleRate == engineSampleRate {
            captureEngine = .allocate(capacity: 0)
            playbackChunk = .allocate(capacity: 0)
            staged = .allocate(capacity: 0)
            mixEngine = .allocate(capacity: 0)
        } else {
            do {
                let capture = try Resampler(channels: 1, inputRate: sampleRate, outputRate: engineSampleRate)
                let playback = try Resampler(channels: channels, inputRate: engineSampleRate, outputRate: sampleRate)
                let mix = try Resampler(channels: channels, inputRate: sampleRate, outputRate: engineSampleRate)
                captureEngine = .allocate(capacity: capture.outputCapacity(forInputFrames: maximumBlockFrames))
                playbackChunk = .allocate(capacity: chunk * channels)
                staged = .allocate(
                    capacity: (maximumBlockFrames + playback.outputCapacity(forInputFrames: chunk)) * channels)
                mixEngine = .allocate(capacity: mix.outputCapacity(forInputFrames: maximumBlockFrames) * channels)
                captureResampler = consume capture
                playbackResampler = consume playback
                mixResampler = consume mix
            } catch {
                captureMono.deallocate()
                throw AudioDeviceError(
                    .unsupportedConfiguration, device: "game audio",
                    reason: "cannot convert between \(sampleRate) Hz and 48 kHz: \(error)")
            }
        }
        captureEngine.initialize(repeating: 0)
        playbackChunk.initialize(repeating: 0)
        staged.initialize(repeating: 0)
        mixEngine.initialize(repeating: 0)
    }

    deinit {
        captureMono.deallocate()
        captureEngine.deallocate()
        playbackChunk.deallocate()
        staged.deallocate()
        mixEngine.deallocate()
    }

    /// One block of the game's audio: `captured` (what the microphone took, `frames` frames of
    /// `channels` interleaved, or nil for none) goes to the engine, and `output` (room for as
    /// many) gets what the engine mixed, silence where it has nothing (it is not running yet, or
    /// fell behind). Either may be nil.
    public func process(captured: UnsafePointer<Float>?, output played: UnsafeMutablePointer<Float>?, frames: Int) {
        var done = 0
        while done < frames {
            let count = min(frames - done, maximumBlockFrames)
            if let captured { capture(captured + done * channels, frames: count) }
            if let played { play(into: played + done * channels, frames: count) }
            done += count
        }
        if output.isRunning { output.periodCadence?.markPeriod(at: MediaTime.monotonicNow()) }
    }

    /// The game's own mix (music, effects: `frames` frames of `channels` interleaved at the game's
    /// rate) at 48 kHz, handed to `emit` in pieces, for the echo canceller's reference.
    public func convertGameMix(
        _ samples: UnsafePointer<Float>, frames: Int, emit: (UnsafeBufferPointer<Float>) -> Void
    ) {
        guard mixResampler != nil else {
            emit(UnsafeBufferPointer(start: samples, count: frames * channels))
            return
        }
        var done = 0
        while done < frames {
            let count = min(frames - done, maximumBlockFrames)
            let block = UnsafeBufferPointer(start: samples + done * channels, count: count * channels)
            mixResampler!.process(block, through: mixEngine, emit: emit)
            done += count
        }
    }

    /// Mixes a block down to mono, converts it to 48 kHz and queues it for the engine.
    private func capture(_ samples: UnsafePointer<Float>, frames: Int) {
        guard input.isRunning else { return }
        if channels == 2 {
            for frame in 0..<frames { captureMono[frame] = (samples[2 * frame] + samples[2 * frame + 1]) * 0.5 }
        } else {
            captureMono.baseAddress!.update(from: samples, count: frames)
        }
        let mono = UnsafeBufferPointer(start: captureMono.baseAddress, count: frames)
        guard captureResampler != nil else {
            input.deliver(mono)
            return
        }
        captureResampler!.process(mono, through: captureEngine) { input.deliver($0) }
    }

    /// Fills a block with what the engine mixed, converted to the game's rate.
    private func play(into destination: UnsafeMutablePointer<Float>, frames: Int) {
        let block = UnsafeMutableBufferPointer(start: destination, count: frames * channels)
        guard output.isRunning else {
            block.update(repeating: 0)
            return
        }
        guard playbackResampler != nil else {
            output.take(into: block)
            return
        }
        while stagedFrames < frames {
            output.take(into: playbackChunk)
            let room = UnsafeMutableBufferPointer(rebasing: staged[(stagedFrames * channels)...])
            // The room holds what a whole chunk becomes, so all of it is consumed.
            let (_, produced) = playbackResampler!.process(UnsafeBufferPointer(playbackChunk), into: room)
            stagedFrames += produced
        }
        destination.update(from: staged.baseAddress!, count: frames * channels)
        let remaining = stagedFrames - frames
        if remaining > 0 {
            staged.baseAddress!.update(from: staged.baseAddress! + frames * channels, count: remaining * channels)
        }
        stagedFrames = remaining
    }
}
