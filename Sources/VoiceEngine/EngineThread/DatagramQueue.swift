import Synchronization
import VoiceCore

/// A bounded queue of datagrams between threads that never allocates once made and takes no
/// lock: the engine thread must neither wait on a network thread nor allocate per packet.
///
/// Every slot owns room for one datagram and its `Label` (where it came from or goes to), so a
/// datagram is copied once in and read in place out. Any number of threads may push; one at a
/// time may pop (callers serialise that). It is Vyukov's bounded queue: each slot's sequence
/// number says whose turn it is, so a producer that claimed a slot publishes it with one store.
final class DatagramQueue<Label>: @unchecked Sendable {
    let capacity: Int
    /// The largest datagram a slot holds.
    let slotBytes: Int
    private let mask: Int
    private let sequences: UnsafeMutablePointer<Atomic<Int>>
    private let labels: UnsafeMutablePointer<Label?>
    private let counts: UnsafeMutablePointer<Int>
    private let bytes: UnsafeMutableRawPointer
    private let enqueuePosition = Atomic<Int>(0)
    /// Only the one popping thread touches it.
    private var dequeuePosition = 0
    private let refusedFull = Atomic<Int>(0)
    private let refusedOversized = Atomic<Int>(0)

    /// - Parameter capacity: rounded up to a power of two.
    init(capacity: Int, slotBytes: Int) {
        var rounded = 1
        while rounded < capacity { rounded <<= 1 }
        self.capacity = rounded
        self.slotBytes = slotBytes
        mask = rounded - 1
        sequences = .allocate(capacity: rounded)
        for index in 0..<rounded { (sequences + index).initialize(to: Atomic(index)) }
        labels = .allocate(capacity: rounded)
        labels.initialize(repeating: nil, count: rounded)
        counts = .allocate(capacity: rounded)
        counts.initialize(repeating: 0, count: rounded)
        bytes = .allocate(byteCount: rounded * slotBytes, alignment: 16)
    }

    deinit {
        sequences.deinitialize(count: capacity)
        sequences.deallocate()
        labels.deinitialize(count: capacity)
        labels.deallocate()
        counts.deallocate()
        bytes.deallocate()
    }

    /// Datagrams refused because the queue was full.
    var refusedFullCount: Int { refusedFull.load(ordering: .relaxed) }
    /// Datagrams refused because they were larger than a slot.
    var refusedOversizedCount: Int { refusedOversized.load(ordering: .relaxed) }

    /// Queues a copy of `datagram` with `label`; false (and counted) when full or too large.
    @discardableResult
    func push(_ datagram: UnsafeRawBufferPointer, label: Label) -> Bool {
        guard datagram.count <= slotBytes else {
            refusedOversized.add(1, ordering: .relaxed)
            return false
        }
        var position = enqueuePosition.load(ordering: .relaxed)
        while true {
            let difference = sequences[position & mask].load(ordering: .acquiring) - position
            if difference == 0 {
                let (claimed, current) = enqueuePosition.weakCompareExchange(
                    expected: position, desired: position + 1, ordering: .relaxed)
                if claimed { break }
                position = current
            } else if difference < 0 {
                refusedFull.add(1, ordering: .relaxed)
                return false
            } else {
                position = enqueuePosition.load(ordering: .relaxed)
            }
        }
        let slot = position & mask
        if let source = datagram.baseAddress {
            (bytes + slot * slotBytes).copyMemory(from: source, byteCount: datagram.count)
        }
        counts[slot] = datagram.count
        // The label the slot held is released here, on the pushing thread, never on the popping one.
        labels[slot] = label
        sequences[slot].store(position + 1, ordering: .releasing)
        return true
    }

    /// Hands the oldest datagram and its label to `body`, in place, then frees its slot; false
    /// when the queue is empty. One thread at a time.
    @discardableResult
    func pop(_ body: (UnsafeRawBufferPointer, Label) -> Void) -> Bool {
        let position = dequeuePosition
        let slot = position & mask
        guard sequences[slot].load(ordering: .acquiring) == position + 1, let label = labels[slot] else {
            return false
        }
        body(UnsafeRawBufferPointer(start: bytes + slot * slotBytes, count: counts[slot]), label)
        dequeuePosition = position + 1
        sequences[slot].store(position + capacity, ordering: .releasing)
        return true
    }

    /// Pops every datagram queued now (not those pushed meanwhile past that); returns how many.
    @discardableResult
    func drain(_ body: (UnsafeRawBufferPointer, Label) -> Void) -> Int {
        var popped = 0
        while popped < capacity, pop(body) { popped += 1 }
        return popped
    }
}
