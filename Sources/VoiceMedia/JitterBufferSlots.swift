import VoiceCore

/// A fixed pool of frame slots, each holding one Opus frame's bytes and what the jitter buffer
/// needs to know about it, keyed by the frame's unwrapped timestamp.
///
/// All memory is taken at creation: storing, looking up and releasing a frame never allocate,
/// so packets can be inserted on the audio path. Lookups scan the pool linearly: with a few dozen
/// slots that is cheaper than keeping any index structure up to date.
///
/// Thread contract: owned by one `VoiceReceiveStream`, used by one thread at a time.
struct JitterBufferSlots: ~Copyable {
    static let empty = Int64.min

    let capacity: Int
    let slotBytes: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var timestamps: [Int64]
    private var sequences: [Int64]
    private var lengths: [Int]
    private var arrivals: [MediaTime]
    private var flagBits: [UInt8]
    private(set) var count = 0

    init(capacity: Int, slotBytes: Int) {
        self.capacity = capacity
        self.slotBytes = slotBytes
        storage = .allocate(byteCount: capacity * slotBytes, alignment: 16)
        timestamps = [Int64](repeating: Self.empty, count: capacity)
        sequences = [Int64](repeating: 0, count: capacity)
        lengths = [Int](repeating: 0, count: capacity)
        arrivals = [MediaTime](repeating: 0, count: capacity)
        flagBits = [UInt8](repeating: 0, count: capacity)
    }

    deinit {
        storage.deallocate()
    }

    func timestamp(at slot: Int) -> Int64 { timestamps[slot] }
    func sequence(at slot: Int) -> Int64 { sequences[slot] }
    func arrival(at slot: Int) -> MediaTime { arrivals[slot] }
    func flags(at slot: Int) -> UInt8 { flagBits[slot] }

    /// The stored frame's bytes; valid until the slot is released or reused.
    func payload(at slot: Int) -> UnsafeBufferPointer<UInt8> {
        let start = storage.baseAddress!.advanced(by: slot * slotBytes).assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: start, count: lengths[slot])
    }

    func slot(forTimestamp timestamp: Int64) -> Int? {
        guard count > 0 else { return nil }
        for slot in 0..<capacity where timestamps[slot] == timestamp { return slot }
        return nil
    }

    /// The slot with the smallest timestamp at or after `timestamp`.
    func earliestSlot(atOrAfter timestamp: Int64) -> Int? {
        guard count > 0 else { return nil }
        var best: Int?
        var bestTimestamp = Int64.max
        for slot in 0..<capacity {
            let candidate = timestamps[slot]
            if candidate != Self.empty && candidate >= timestamp && candidate < bestTimestamp {
                best = slot
                bestTimestamp = candidate
            }
        }
        return best
    }

    /// Copies a frame into a free slot. When the pool is full, the frame with the smallest
    /// timestamp makes room (it is the one the catch-up would skip first) and its sequence
    /// number is returned in `evicted`. Returns false if `payload` does not fit a slot.
    mutating func store(
        timestamp: Int64, sequence: Int64, flags: UInt8, arrival: MediaTime, payload: UnsafeRawBufferPointer,
        evicted: inout Int64?
    ) -> Bool {
        guard payload.count <= slotBytes, payload.count > 0 else { return false }
        var free: Int?
        for slot in 0..<capacity where timestamps[slot] == Self.empty {
            free = slot
            break
        }
        if free == nil, let oldest = earliestSlot(atOrAfter: Int64.min + 1) {
            evicted = sequences[oldest]
            release(oldest)
            free = oldest
        }
        guard let slot = free else { return false }
        let destination = UnsafeMutableRawBufferPointer(
            start: storage.baseAddress!.advanced(by: slot * slotBytes), count: slotBytes)
        destination.copyMemory(from: payload)
        timestamps[slot] = timestamp
        sequences[slot] = sequence
        lengths[slot] = payload.count
        arrivals[slot] = arrival
        flagBits[slot] = flags
        count += 1
        return true
    }

    mutating func release(_ slot: Int) {
        guard timestamps[slot] != Self.empty else { return }
        timestamps[slot] = Self.empty
        lengths[slot] = 0
        count -= 1
    }

    /// Releases every frame before `timestamp`, calling `body` with each one's sequence number.
    mutating func releaseAll(before timestamp: Int64, _ body: (Int64) -> Void) {
        guard count > 0 else { return }
        for slot in 0..<capacity where timestamps[slot] != Self.empty && timestamps[slot] < timestamp {
            body(sequences[slot])
            release(slot)
        }
    }

    mutating func removeAll() {
        for slot in 0..<capacity { release(slot) }
    }
}
