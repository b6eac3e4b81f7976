import VoiceCore

/// What a real-time microphone delivered that the engine has not sent yet, taken from the device's
/// ring every frame so that the ring never fills behind the engine's back.
///
/// The engine thread takes every whole frame each tick (`takeFrames`), so nothing stands behind it.
/// Taken a frame at a time (`nextFrame`), a backlog that stood above a frame for a whole window
/// (the engine thread stalled and the device kept capturing) loses its oldest audio, so the delay
/// it added does not last the rest of the call. Preallocated; never allocates while running.
final class CaptureBacklog {
    let frameSamples: Int
    private let buffer: UnsafeMutableBufferPointer<Float>
    private var filled = 0
    private var standing: StandingQueue
    /// Samples dropped to catch up with the device.
    private(set) var droppedSamples = 0

    /// - Parameters:
    ///   - capacitySamples: the most the backlog holds; beyond it the device's audio is taken and
    ///     the oldest dropped at once (a stall longer than any window).
    ///   - windowFrames: frames a backlog must stand before it is trimmed.
    init(frameSamples: Int, capacitySamples: Int, windowFrames: Int) {
        self.frameSamples = frameSamples
        let capacity = max(capacitySamples, 2 * frameSamples)
        buffer = .allocate(capacity: capacity)
        buffer.initialize(repeating: 0)
        // Up to a frame may always wait: a device whose period is not a multiple of the frame leaves
        // a part of one behind at every tick.
        standing = StandingQueue(allowance: frameSamples, window: windowFrames)
    }

    deinit { buffer.deallocate() }

    /// Takes what `input` has, then moves the oldest whole frame into `frame`. Returns false (and
    /// leaves `frame` alone) when less than a frame is waiting.
    func nextFrame(from input: any AudioInput, into frame: UnsafeMutableBufferPointer<Float>) -> Bool {
        drain(input)
        guard filled >= frameSamples else { return false }
        _ = frame.update(fromContentsOf: buffer[0..<frameSamples])
        remove(frameSamples)
        let excess = standing.observe(queued: filled)
        if excess > 0 { drop(min(excess, filled)) }
        return true
    }

    /// Takes what `input` has, then hands every whole frame waiting to `send`, oldest first, and
    /// returns how many there were. A microphone that delivered late (its device or server missed
    /// cycles, then caught up) thus has its frames sent in the tick they arrive: the frame count
    /// that stamps them keeps pace with the device's clock instead of standing a stall's length
    /// behind it until the standing window drops the audio.
    @discardableResult
    func takeFrames(
        from input: any AudioInput, into frame: UnsafeMutableBufferPointer<Float>,
        _ send: (UnsafeBufferPointer<Float>) -> Void
    ) -> Int {
        drain(input)
        var taken = 0
        while filled >= frameSamples {
            _ = frame.update(fromContentsOf: buffer[0..<frameSamples])
            remove(frameSamples)
            send(UnsafeBufferPointer(frame))
            taken += 1
        }
        return taken
    }

    private func drain(_ input: any AudioInput) {
        while true {
            if filled == buffer.count {
                // Longer behind than the backlog holds: keep only the newest frame's worth.
                drop(filled - frameSamples)
            }
            let read = input.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
            filled += read
            if read == 0 || filled < buffer.count { return }
        }
    }

    private func drop(_ samples: Int) {
        guard samples > 0 else { return }
        remove(samples)
        droppedSamples += samples
    }

    private func remove(_ samples: Int) {
        let remaining = filled - samples
        if remaining > 0 {
            let base = buffer.baseAddress!
            (base).update(from: base + samples, count: remaining)
        }
        filled = remaining
    }
}
