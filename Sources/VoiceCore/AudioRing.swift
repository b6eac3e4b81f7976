import Synchronization

/// A preallocated single-producer / single-consumer ring of interleaved float audio.
///
/// This is the only way audio crosses between a device thread and the engine. Thread
/// contract: exactly one thread calls the writing side (`write`, `availableToWrite`) and
/// exactly one thread calls the reading side (`read`, `availableToRead`, `discard`) at a
/// time. Neither side allocates, locks or waits: each publishes its position with a release
/// store and reads the other's with an acquire load, so the samples written before a
/// position is published are visible to the side that observes it.
///
/// Positions are counted in frames and grow without wrapping (a 64-bit counter at 48 kHz
/// lasts millions of years); the storage index is the position modulo the capacity, which is
/// a power of two so that the modulo is a mask.
public final class AudioRing: @unchecked Sendable {
    /// Interleaved channels per frame.
    public let channels: Int
    /// How many frames the ring holds.
    public let capacityFrames: Int

    private let storage: UnsafeMutablePointer<Float>
    private let mask: Int
    /// Frames ever written; stored only by the producer.
    private let writePosition = Atomic<Int>(0)
    /// Frames ever read; stored only by the consumer.
    private let readPosition = Atomic<Int>(0)

    /// Creates a ring holding at least `minimumFrames` frames (rounded up to a power of two).
    public init(channels: Int, minimumFrames: Int) {
        precondition(channels > 0, "a ring needs at least one channel")
        precondition(minimumFrames > 0, "a ring needs room for at least one frame")
        var capacity = 1
        while capacity < minimumFrames { capacity <<= 1 }
        self.channels = channels
        self.capacityFrames = capacity
        self.mask = capacity - 1
        self.storage = .allocate(capacity: capacity * channels)
        self.storage.initialize(repeating: 0, count: capacity * channels)
    }

    deinit {
        storage.deallocate()
    }

    /// Frames the consumer can read now.
    public var availableToRead: Int {
        writePosition.load(ordering: .acquiring) - readPosition.load(ordering: .relaxed)
    }

    /// Frames the producer can write now.
    public var availableToWrite: Int {
        capacityFrames - (writePosition.load(ordering: .relaxed) - readPosition.load(ordering: .acquiring))
    }

    /// Producer side: copies as many whole frames of `samples` as fit and returns how many
    /// frames were written. `samples.count` must be a multiple of `channels`.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard let source = samples.baseAddress else { return 0 }
        let start = writePosition.load(ordering: .relaxed)
        let free = capacityFrames - (start - readPosition.load(ordering: .acquiring))
        let frames = min(free, samples.count / channels)
        guard frames > 0 else { return 0 }
        copy(frames: frames, at: start) { destination, offset, count in
            destination.update(from: source + offset, count: count)
        }
        writePosition.store(start + frames, ordering: .releasing)
        return frames
    }

    /// Producer side: writes `frames` frames of silence, as many as fit; returns how many.
    @discardableResult
    public func writeSilence(frames requested: Int) -> Int {
        let start = writePosition.load(ordering: .relaxed)
        let free = capacityFrames - (start - readPosition.load(ordering: .acquiring))
        let frames = min(free, requested)
        guard frames > 0 else { return 0 }
        copy(frames: frames, at: start) { destination, _, count in
            destination.update(repeating: 0, count: count)
        }
        writePosition.store(start + frames, ordering: .releasing)
        return frames
    }

    /// Consumer side: copies up to `destination.count / channels` frames out and returns how
    /// many frames were read.
    @discardableResult
    public func read(into destination: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let target = destination.baseAddress else { return 0 }
        let start = readPosition.load(ordering: .relaxed)
        let frames = min(writePosition.load(ordering: .acquiring) - start, destination.count / channels)
        guard frames > 0 else { return 0 }
        copy(frames: frames, at: start) { storageSlice, offset, count in
            (target + offset).update(from: storageSlice, count: count)
        }
        readPosition.store(start + frames, ordering: .releasing)
        return frames
    }

    /// Consumer side: drops up to `frames` of the oldest frames; returns how many were dropped.
    /// Used to catch up when the consumer fell behind.
    @discardableResult
    public func discard(frames requested: Int) -> Int {
        let start = readPosition.load(ordering: .relaxed)
        let frames = min(writePosition.load(ordering: .acquiring) - start, requested)
        guard frames > 0 else { return 0 }
        readPosition.store(start + frames, ordering: .releasing)
        return frames
    }

    /// Visits the storage for `frames` frames starting at ring position `position`, in at
    /// most two contiguous pieces (before and after the wrap). The closure gets the storage
    /// pointer, the sample offset into the caller's buffer, and the sample count.
    @inline(__always)
    private func copy(
        frames: Int,
        at position: Int,
        _ body: (UnsafeMutablePointer<Float>, Int, Int) -> Void
    ) {
        let index = position & mask
        let firstFrames = min(frames, capacityFrames - index)
        body(storage + index * channels, 0, firstFrames * channels)
        let secondFrames = frames - firstFrames
        if secondFrames > 0 {
            body(storage, firstFrames * channels, secondFrames * channels)
        }
    }
}
