import VoiceCore

/// Queues the engine's mix for a speaker, keeping what waits in the speaker's ring short.
///
/// A real-time speaker consumes at its own clock. When the engine thread catches up after a stall,
/// or the device misses cycles, frames pile up in its ring and — both sides then running at the same
/// rate — would stay there, adding their length to the delay for the rest of the call. Once the
/// queue has stood above one frame for a whole window, that many frames are skipped. They are
/// skipped where the mix is quiet if such a frame comes within `quietWaitFrames`: a frame cut out
/// of speech is a click in it, one cut out of a pause is not heard. An on-demand output (a file
/// written as fast as the engine runs) takes every frame.
///
/// The other way round, a speaker whose ring ran dry played a period of silence, and everything
/// after it plays that much later for the rest of the call: the engine, which mixes just before
/// the speaker needs each period, then mixes later too, and packets wait longer for it. So the
/// time a dry run cost is left out of the mix, from a quiet frame if one comes within
/// `quietWaitFrames`, which brings the mixing back to where it was.
struct PlaybackPacer {
    let output: any AudioOutput
    let frameSamples: Int
    /// Interleaved channels of what is written: each frame of the mix is this many samples.
    let channels: Int
    /// The ring's free space when empty (measured before the first write), or nil when on demand.
    let capacity: Int?
    private var standing: StandingQueue
    private var framesToSkip = 0
    /// Frames written since the next skip became due: each waits for a quiet frame on its own.
    private var waitedFrames = 0
    private(set) var skippedFrames = 0
    /// Of `skippedFrames`, those that were not quiet (no quiet frame came in time).
    private(set) var skippedLoudFrames = 0
    /// Engine frames the speaker played as silence and not yet left out of the mix.
    private var owedSamples = 0
    /// Frames written since a dry run was owed.
    private var owedWaitedFrames = 0
    /// The speaker's dry-run count at the last write; nil before the first.
    private var starvedSeen: Int?
    /// Engine frames left out of the mix to take back what dry runs cost.
    private(set) var reclaimedSamples = 0

    /// Frames the queue must stand above a frame before it is trimmed: long enough that ordinary
    /// scheduling jitter never costs audio, short enough that a stall's delay is gone within a second.
    static let standingWindowFrames = 50
    /// How long a due skip waits for a quiet frame: about the longest a syllable lasts.
    static let quietWaitFrames = 25
    /// A mix frame below this level (dBFS, RMS) is quiet enough to leave out unheard.
    static let quietLevelDBFS: Float = -50
    /// The most dry-run time owed at once, engine frames (100 ms); a longer dry run was a stall
    /// whose rest the jitter buffer sheds. At most a frame of it is left out per frame written.
    static let maximumOwedSamples = 4_800

    init(output: any AudioOutput, frameSamples: Int) {
        self.output = output
        self.frameSamples = frameSamples
        channels = max(output.format.channels, 1)
        capacity = output.pacing == .realTime ? output.availableToWrite : nil
        standing = StandingQueue(allowance: frameSamples, window: Self.standingWindowFrames)
    }

    /// Frames waiting in a real-time speaker's ring; 0 for an on-demand output.
    var queuedFrames: Int {
        guard let capacity else { return 0 }
        return max(0, capacity - output.availableToWrite)
    }

    /// Queues `mix` (interleaved, `channels` to a frame) for the speaker, or the part of it that
    /// is not left out; returns what was queued, nil for nothing.
    @discardableResult
    mutating func write(_ mix: UnsafeBufferPointer<Float>) -> UnsafeBufferPointer<Float>? {
        let available = output.availableToWrite
        let frames = mix.count / channels
        if let capacity {
            // What stood over a whole window includes the frames still owed, so it replaces them
            // (and a queue that drained meanwhile owes nothing).
            if let standingSamples = standing.observe(queued: max(0, capacity - available)) {
                framesToSkip = standingSamples / frameSamples
                if framesToSkip == 0 { waitedFrames = 0 }
            }
            noteDryRuns()
            // Measured once, and only when a frame may be left out.
            let quiet =
                (framesToSkip > 0 || owedSamples > 0) && LevelMeter.rmsDBFS(of: mix) < Self.quietLevelDBFS
            if framesToSkip > 0 {
                if quiet || waitedFrames >= Self.quietWaitFrames {
                    framesToSkip -= 1
                    skippedFrames += 1
                    if !quiet { skippedLoudFrames += 1 }
                    // Measure afresh: the window so far saw the queue before this skip.
                    standing.restart()
                    waitedFrames = 0
                    return nil
                }
                waitedFrames += 1
            }
            if owedSamples > 0 {
                if owedWaitedFrames >= Self.quietWaitFrames || quiet {
                    let left = min(owedSamples, frames)
                    owedSamples -= left
                    reclaimedSamples += left
                    owedWaitedFrames = 0
                    let rest = UnsafeBufferPointer(rebasing: mix[(left * channels)...])
                    guard !rest.isEmpty, available >= frames - left else { return nil }
                    _ = output.write(rest)
                    return rest
                }
                owedWaitedFrames += 1
            }
        }
        guard available >= frames else { return nil }
        _ = output.write(mix)
        return mix
    }

    /// Adds what the speaker played as silence since the last write to what is owed.
    private mutating func noteDryRuns() {
        let starved = output.statistics.ringStarvedFrames
        defer { starvedSeen = starved }
        guard let seen = starvedSeen, starved > seen else { return }
        let periodFrames = output.periodCadence.map { ($0.periodFrames, $0.periodEngineFrames) }
        let engineFrames = periodFrames.map { (starved - seen) * $0.1 / max($0.0, 1) } ?? (starved - seen)
        owedSamples = min(owedSamples + engineFrames, Self.maximumOwedSamples)
    }
}
