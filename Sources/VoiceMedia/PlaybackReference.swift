import VoiceCore

/// What the speaker was given, kept for long enough to find the audio that was playing while any
/// captured frame was captured: the echo canceller's reference.
///
/// Two sources add up to it: the engine's own mix, as written to the speaker (`played`), and the
/// game's output mix (its music and effects), which the game hands in from its own audio thread
/// (`addGameMix`) through a lock-free ring. Each played sample takes the game's next one, so
/// both run on the speaker's clock; a game that hands in more than it plays has the surplus
/// dropped, keeping its part from drifting later than its sound.
///
/// Samples are numbered from the first played; `copy(endingAt:into:)` reads by that number.
/// Thread contract: `played`, `copy` and the counters belong to one thread (the engine's);
/// `addGameMix` to one other. Preallocated; neither side allocates or locks.
public final class PlaybackReference: @unchecked Sendable {
    /// Samples kept, a power of two.
    public let capacity: Int
    private let samples: UnsafeMutableBufferPointer<Float>
    private let gameMix: AudioRing
    private let gameScratch: UnsafeMutableBufferPointer<Float>
    /// The game's thread's own: its interleaved frames mixed down to mono.
    private let downmix: UnsafeMutableBufferPointer<Float>
    /// Samples ever played.
    public private(set) var written = 0
    /// Game samples taken into the reference, and those dropped because the game handed in more
    /// than the speaker played.
    public private(set) var gameSamplesMixed = 0
    public private(set) var gameSamplesDropped = 0
    /// The game's audio that may wait to be played, in samples: a few frames of its audio thread.
    public let gameBacklogSamples: Int

    /// - Parameters:
    ///   - minimumSamples: how far back `copy` reaches (rounded up to a power of two).
    ///   - gameBacklogSamples: how much of the game's mix may wait before its oldest is dropped.
    public init(minimumSamples: Int, gameBacklogSamples: Int = 4_800) {
        var capacity = 1
        while capacity < minimumSamples { capacity <<= 1 }
        self.capacity = capacity
        samples = .allocate(capacity: capacity)
        samples.initialize(repeating: 0)
        self.gameBacklogSamples = gameBacklogSamples
        gameMix = AudioRing(channels: 1, minimumFrames: gameBacklogSamples * 2)
        gameScratch = .allocate(capacity: 1_024)
        gameScratch.initialize(repeating: 0)
        downmix = .allocate(capacity: 1_024)
        downmix.initialize(repeating: 0)
    }

    deinit {
        samples.deallocate()
        gameScratch.deallocate()
        downmix.deallocate()
    }

    /// The game's thread: queues 48 kHz frames of its output mix, mono or `channels` interleaved
    /// (mixed down to mono); returns how many frames were taken (fewer when the engine has not
    /// played for a while and the queue is full).
    @discardableResult
    public func addGameMix(_ mix: UnsafeBufferPointer<Float>, channels: Int = 1) -> Int {
        guard channels > 1 else { return gameMix.write(mix) }
        let frames = mix.count / channels
        var taken = 0
        while taken < frames {
            let count = min(frames - taken, downmix.count)
            for frame in 0..<count {
                var sum: Float = 0
                for channel in 0..<channels { sum += mix[(taken + frame) * channels + channel] }
                downmix[frame] = sum / Float(channels)
            }
            let written = gameMix.write(UnsafeBufferPointer(rebasing: downmix[0..<count]))
            taken += written
            if written < count { break }
        }
        return taken
    }

    /// Appends what the speaker was just given, with as much of the game's mix added to it.
    public func played(_ frame: UnsafeBufferPointer<Float>) {
        let surplus = gameMix.availableToRead - gameBacklogSamples
        if surplus > 0 { gameSamplesDropped += gameMix.discard(frames: surplus) }
        var offset = 0
        while offset < frame.count {
            let count = min(frame.count - offset, gameScratch.count)
            let game = gameMix.read(into: UnsafeMutableBufferPointer(rebasing: gameScratch[0..<count]))
            gameSamplesMixed += game
            for index in 0..<count {
                let position = (written + index) & (capacity - 1)
                samples[position] = frame[offset + index] + (index < game ? gameScratch[index] : 0)
            }
            written += count
            offset += count
        }
    }

    /// Copies the `output.count` samples that end at sample number `end` (exclusive); samples
    /// before the first played, not played yet or no longer kept read as silence.
    public func copy(endingAt end: Int, into output: UnsafeMutableBufferPointer<Float>) {
        let start = end - output.count
        let oldest = max(0, written - capacity)
        for index in 0..<output.count {
            let number = start + index
            output[index] = number >= oldest && number < written ? samples[number & (capacity - 1)] : 0
        }
    }
}
