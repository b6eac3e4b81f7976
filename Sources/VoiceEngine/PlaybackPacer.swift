import VoiceCore

/// Queues the engine's mix for a speaker, keeping what waits in the speaker's ring short.
///
/// A real-time speaker consumes at its own clock. When the engine thread catches up after a stall,
/// or the device misses cycles, frames pile up in its ring and — both sides then running at the same
/// rate — would stay there, adding their length to the delay for the rest of the call. Once the
/// queue has stood above one frame for a whole window, that many frames are skipped. An on-demand
/// output (a file written as fast as the engine runs) takes every frame.
struct PlaybackPacer {
    let output: any AudioOutput
    let frameSamples: Int
    /// The ring's free space when empty (measured before the first write), or nil when on demand.
    private let capacity: Int?
    private var standing: StandingQueue
    private var framesToSkip = 0
    private(set) var skippedFrames = 0

    /// Frames the queue must stand above a frame before it is trimmed: long enough that ordinary
    /// scheduling jitter never costs audio, short enough that a stall's delay is gone within a second.
    static let standingWindowFrames = 50

    init(output: any AudioOutput, frameSamples: Int) {
        self.output = output
        self.frameSamples = frameSamples
        capacity = output.pacing == .realTime ? output.availableToWrite : nil
        standing = StandingQueue(allowance: frameSamples, window: Self.standingWindowFrames)
    }

    mutating func write(_ mix: UnsafeBufferPointer<Float>) {
        let available = output.availableToWrite
        if let capacity {
            framesToSkip += standing.observe(queued: max(0, capacity - available)) / frameSamples
            if framesToSkip > 0 {
                framesToSkip -= 1
                skippedFrames += 1
                return
            }
        }
        if available >= mix.count { _ = output.write(mix) }
    }
}
