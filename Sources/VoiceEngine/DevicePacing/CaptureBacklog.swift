import VoiceCore

/// What a real-time microphone delivered that the engine has not sent yet, taken from the device's
/// ring every tick so that the ring never fills behind the engine's back.
///
/// Every whole frame waiting is sent in the tick it arrived (`takeFrames`): a packet's timestamp is
/// its frame's number, so a device that delivered late (it or its server missed cycles, then caught
/// up) would otherwise leave the stall standing behind the engine and stamp every later packet late.
/// Time the device lost instead (see `CaptureTimeline`) is reported before the frames that follow
/// it, for the send pipelines to skip; so are frames dropped because more waited than the backlog
/// holds (the engine was stopped for longer). Preallocated; never allocates while running.
final class CaptureBacklog {
    /// What the capture step hands on, in timeline order.
    enum Event {
        /// Frames of time with no audio: lost by the device, or dropped here.
        case lost(frames: Int)
        /// One whole frame, valid only during the call, and how many whole frames captured after
        /// it are handed on in the same turn.
        case captured(UnsafeBufferPointer<Float>, framesAfter: Int)
    }

    let frameSamples: Int
    private let buffer: UnsafeMutableBufferPointer<Float>
    private var filled = 0
    private var timeline: CaptureTimeline
    /// Samples dropped because more waited than the backlog holds.
    private(set) var droppedSamples = 0
    /// Frames of time the device lost, as `CaptureTimeline` told them.
    private(set) var lostFrames = 0

    /// - Parameters:
    ///   - capacitySamples: the most the backlog holds; beyond it the device's audio is taken and
    ///     the oldest whole frames dropped at once.
    ///   - framePeriod: how long a frame lasts, for telling lost time from late delivery.
    init(frameSamples: Int, capacitySamples: Int, framePeriod: MediaTime) {
        self.frameSamples = frameSamples
        let capacity = max(capacitySamples, 2 * frameSamples)
        buffer = .allocate(capacity: capacity)
        buffer.initialize(repeating: 0)
        timeline = CaptureTimeline(frameSamples: frameSamples, framePeriod: framePeriod)
    }

    deinit { buffer.deallocate() }

    /// Takes what `input` has at `now`, then hands `handle` the lost time before it, if any, and
    /// every whole frame waiting, oldest first. Returns how many frames were handed on. A part of
    /// a frame stays for the next tick.
    @discardableResult
    func takeFrames(from input: any AudioInput, at now: MediaTime, _ handle: (Event) -> Void) -> Int {
        let (delivered, droppedFrames) = drain(input)
        let lostByDevice = timeline.lostFrames(afterDelivering: delivered, at: now)
        lostFrames += lostByDevice
        let lost = droppedFrames + lostByDevice
        if lost > 0 { handle(.lost(frames: lost)) }
        let frames = filled / frameSamples
        for index in 0..<frames {
            handle(
                .captured(
                    UnsafeBufferPointer(rebasing: buffer[(index * frameSamples)..<((index + 1) * frameSamples)]),
                    framesAfter: frames - 1 - index))
        }
        remove(frames * frameSamples)
        return frames
    }

    /// Reads everything the device has; returns the samples read and the whole frames dropped.
    private func drain(_ input: any AudioInput) -> (delivered: Int, droppedFrames: Int) {
        var delivered = 0
        var droppedFrames = 0
        while true {
            if filled == buffer.count {
                // Longer behind than the backlog holds: keep only the newest whole frame and
                // what follows it, so that frames keep their boundaries.
                let frames = filled / frameSamples - 1
                remove(frames * frameSamples)
                droppedSamples += frames * frameSamples
                droppedFrames += frames
            }
            let read = input.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
            filled += read
            delivered += read
            if read == 0 || filled < buffer.count { return (delivered, droppedFrames) }
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
