import VoiceCore

/// What a real-time microphone delivered that the engine has not sent yet, taken from the device's
/// ring every tick so that the ring never fills behind the engine's back.
///
/// Every whole frame waiting is sent in the tick it arrived (`takeFrames`): a packet's timestamp is
/// its frame's number, so a device that delivered late (it or its server missed cycles, then caught
/// up) would otherwise leave the stall standing behind the engine and stamp every later packet late.
/// Only a stall longer than the backlog holds loses audio (the oldest). Preallocated; never
/// allocates while running.
final class CaptureBacklog {
    let frameSamples: Int
    private let buffer: UnsafeMutableBufferPointer<Float>
    private var filled = 0
    /// Samples dropped because more waited than the backlog holds.
    private(set) var droppedSamples = 0

    /// - Parameter capacitySamples: the most the backlog holds; beyond it the device's audio is
    ///   taken and the oldest dropped at once.
    init(frameSamples: Int, capacitySamples: Int) {
        self.frameSamples = frameSamples
        let capacity = max(capacitySamples, 2 * frameSamples)
        buffer = .allocate(capacity: capacity)
        buffer.initialize(repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// Takes what `input` has, then hands every whole frame waiting to `send`, oldest first, and
    /// returns how many there were. A part of a frame stays for the next tick.
    @discardableResult
    func takeFrames(from input: any AudioInput, _ send: (UnsafeBufferPointer<Float>) -> Void) -> Int {
        drain(input)
        let frames = filled / frameSamples
        for index in 0..<frames {
            send(UnsafeBufferPointer(rebasing: buffer[(index * frameSamples)..<((index + 1) * frameSamples)]))
        }
        remove(frames * frameSamples)
        return frames
    }

    private func drain(_ input: any AudioInput) {
        while true {
            if filled == buffer.count {
                // Longer behind than the backlog holds: keep only the newest frame's worth.
                let dropped = filled - frameSamples
                remove(dropped)
                droppedSamples += dropped
            }
            let read = input.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
            filled += read
            if read == 0 || filled < buffer.count { return }
        }
    }

    private func remove(_ samples: Int) {
        guard samples > 0 else { return }
        let remaining = filled - samples
        if remaining > 0 {
            let base = buffer.baseAddress!
            base.update(from: base + samples, count: remaining)
        }
        filled = remaining
    }
}
