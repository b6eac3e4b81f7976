import Foundation
import VoiceCore

/// One direction of a simulated network path: loss (random or bursty), delay, jitter, duplication
/// and delay spikes, deterministic for a seed.
///
/// Datagrams in flight are copied into a pool preallocated at creation (`capacity` slots of
/// `maximumDatagramBytes`), ordered by a binary heap on (delivery time, order of scheduling), so a
/// steady-state simulation allocates nothing per datagram. When every slot is in flight the datagram
/// is dropped and counted in `poolOverflow`.
///
/// Delay of one datagram = base + jitter + spike + route:
/// - jitter is drawn uniformly from [0, J] per datagram, so datagrams sent close together reorder;
/// - a duplicate is a second copy with its own jitter draw;
/// - a spike models a queue that stalls and then drains: when one starts (probability
///   `delaySpikeRate` per datagram) the datagram starting it gets `delaySpikeMilliseconds` extra,
///   and a datagram sent t later gets that minus t, until it reaches 0. Datagrams sent during a
///   spike therefore bunch up and arrive nearly together when it ends, as after a real stall.
///   A spike starting during another keeps whichever extra delay is larger;
/// - a route delay that drifts (a raised cosine) and steps (every other interval) with the send
///   time, for a receiver that must follow a path whose delay changes for good.
///
/// Not thread-safe: one simulation loop drives it. It is a class because it owns its pool memory.
public final class SimulatedNetwork {
    public let conditions: NetworkConditions
    public let capacity: Int
    public let maximumDatagramBytes: Int
    public private(set) var statistics = NetworkStatistics()

    private var random: SeededRandom
    private var lossModel: PacketLossModel

    // The pool: slot i holds bytes [i * maximumDatagramBytes, +lengths[i]).
    private let storage: UnsafeMutableRawBufferPointer
    private let lengths: UnsafeMutableBufferPointer<Int>
    private let deliveryTimes: UnsafeMutableBufferPointer<MediaTime>
    private let scheduleOrder: UnsafeMutableBufferPointer<UInt64>
    private let sendIndices: UnsafeMutableBufferPointer<Int>
    private let tags: UnsafeMutableBufferPointer<Int>
    private let freeSlots: UnsafeMutableBufferPointer<Int>
    private var freeCount: Int
    private let heap: UnsafeMutableBufferPointer<Int>
    private var heapCount = 0

    private var nextScheduleOrder: UInt64 = 0
    private var latestDeliveredSendIndex = -1
    private var spikeStart: MediaTime = 0
    private var spikeMagnitude: MediaTime = 0

    private let baseDelay: MediaTime
    private let jitterNanoseconds: Double
    private let spikeDelay: MediaTime
    private let duplicateRate: Double
    private let spikeRate: Double

    public init(conditions: NetworkConditions, seed: UInt64, capacity: Int = 4096, maximumDatagramBytes: Int = 1500) {
        self.conditions = conditions
        self.capacity = max(1, capacity)
        self.maximumDatagramBytes = max(1, maximumDatagramBytes)
        var random = SeededRandom(seed: seed)
        lossModel = PacketLossModel(
            lossRate: conditions.lossRate, meanBurstLength: conditions.meanBurstLength,
            meanBurstMilliseconds: conditions.meanBurstMilliseconds, random: &random)
        self.random = random

        func nonNegative(_ value: Double) -> Double { value.isFinite ? max(0, value) : 0 }
        baseDelay = .milliseconds(nonNegative(conditions.baseDelayMilliseconds))
        jitterNanoseconds = nonNegative(conditions.jitterMilliseconds) * 1e6
        spikeDelay = .milliseconds(nonNegative(conditions.delaySpikeMilliseconds))
        duplicateRate = nonNegative(conditions.duplicateRate)
        spikeRate = nonNegative(conditions.delaySpikeRate)

        let slots = self.capacity
        storage = .allocate(byteCount: slots * self.maximumDatagramBytes, alignment: 16)
        lengths = .allocate(capacity: slots)
        lengths.initialize(repeating: 0)
        deliveryTimes = .allocate(capacity: slots)
        deliveryTimes.initialize(repeating: 0)
        scheduleOrder = .allocate(capacity: slots)
        scheduleOrder.initialize(repeating: 0)
        sendIndices = .allocate(capacity: slots)
        sendIndices.initialize(repeating: 0)
        tags = .allocate(capacity: slots)
        tags.initialize(repeating: 0)
        freeSlots = .allocate(capacity: slots)
        for slot in 0..<slots { freeSlots[slot] = slots - 1 - slot }
        freeCount = slots
        heap = .allocate(capacity: slots)
        heap.initialize(repeating: 0)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        deliveryTimes.deallocate()
        scheduleOrder.deallocate()
        sendIndices.deallocate()
        tags.deallocate()
        freeSlots.deallocate()
        heap.deallocate()
    }

    /// Datagrams scheduled and not yet delivered.
    public var inFlight: Int { heapCount }

    /// When the next datagram is due, if any is in flight.
    public var nextDeliveryTime: MediaTime? {
        heapCount == 0 ? nil : deliveryTimes[heap[0]]
    }

    /// Sends one datagram at `time`: it is lost, or scheduled (once or twice) for delivery. `tag`
    /// comes back with it (a simulated world says there who sent it).
    public func send(_ datagram: UnsafeRawBufferPointer, at time: MediaTime, tag: Int = 0) {
        let sendIndex = statistics.sent
        statistics.sent += 1
        if spikeRate > 0 && random.chance(spikeRate) {
            let residual = spikeResidual(at: time)
            spikeStart = time
            spikeMagnitude = max(spikeDelay, residual)
        }
        if lossModel.nextIsLost(at: time, &random) {
            statistics.dropped += 1
            return
        }
        guard datagram.count <= maximumDatagramBytes else {
            statistics.oversize += 1
            return
        }
        let queueing = baseDelay + spikeResidual(at: time) + routeDelay(at: time)
        schedule(datagram, sendIndex: sendIndex, tag: tag, at: time + queueing + jitter())
        if duplicateRate > 0 && random.chance(duplicateRate) {
            statistics.duplicated += 1
            schedule(datagram, sendIndex: sendIndex, tag: tag, at: time + queueing + jitter())
        }
    }

    /// Delivers every datagram due at or before `time`, in delivery order (ties in the order they
    /// were scheduled), to `body(bytes, deliveryTime)`. The bytes are valid only during the call.
    public func deliver(until time: MediaTime, _ body: (UnsafeRawBufferPointer, MediaTime) -> Void) {
        deliver(until: time) { bytes, deliveryTime, _ in body(bytes, deliveryTime) }
    }

    /// `deliver(until:_:)`, with the tag each datagram was sent with.
    public func deliver(until time: MediaTime, _ body: (UnsafeRawBufferPointer, MediaTime, Int) -> Void) {
        while heapCount > 0 && deliveryTimes[heap[0]] <= time {
            let slot = popEarliest()
            let sendIndex = sendIndices[slot]
            if sendIndex < latestDeliveredSendIndex {
                statistics.reordered += 1
            } else {
                latestDeliveredSendIndex = sendIndex
            }
            statistics.delivered += 1
            let start = slot * maximumDatagramBytes
            body(
                UnsafeRawBufferPointer(rebasing: storage[start..<(start + lengths[slot])]), deliveryTimes[slot],
                tags[slot])
            freeSlots[freeCount] = slot
            freeCount += 1
        }
    }

    /// The drifting and stepping part of the path's delay for a datagram sent at `time`.
    private func routeDelay(at time: MediaTime) -> MediaTime {
        var milliseconds = 0.0
        let seconds = Double(time) / 1e9
        if conditions.delayWanderMilliseconds > 0, conditions.delayWanderPeriodSeconds > 0 {
            let phase = 2 * Double.pi * seconds / conditions.delayWanderPeriodSeconds
            milliseconds += conditions.delayWanderMilliseconds * (1 - cos(phase)) / 2
        }
        if conditions.delayStepMilliseconds > 0, conditions.delayStepIntervalSeconds > 0,
            Int(seconds / conditions.delayStepIntervalSeconds) % 2 == 1
        {
            milliseconds += conditions.delayStepMilliseconds
        }
        return milliseconds.isFinite ? .milliseconds(max(0, min(milliseconds, 1e6))) : 0
    }

    private func spikeResidual(at time: MediaTime) -> MediaTime {
        max(0, spikeMagnitude - (time - spikeStart))
    }

    private func jitter() -> MediaTime {
        jitterNanoseconds > 0 ? MediaTime((random.nextUnit() * jitterNanoseconds).rounded()) : 0
    }

    private func schedule(_ datagram: UnsafeRawBufferPointer, sendIndex: Int, tag: Int, at deliveryTime: MediaTime) {
        guard freeCount > 0 else {
            statistics.poolOverflow += 1
            return
        }
        freeCount -= 1
        let slot = freeSlots[freeCount]
        let start = slot * maximumDatagramBytes
        if !datagram.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start + datagram.count)]).copyMemory(
                from: datagram)
        }
        lengths[slot] = datagram.count
        deliveryTimes[slot] = deliveryTime
        sendIndices[slot] = sendIndex
        tags[slot] = tag
        scheduleOrder[slot] = nextScheduleOrder
        nextScheduleOrder += 1
        pushHeap(slot)
    }

    // MARK: Binary min-heap of slots on (delivery time, schedule order)

    private func isEarlier(_ a: Int, _ b: Int) -> Bool {
        let timeA = deliveryTimes[a]
        let timeB = deliveryTimes[b]
        return timeA != timeB ? timeA < timeB : scheduleOrder[a] < scheduleOrder[b]
    }

    private func pushHeap(_ slot: Int) {
        var index = heapCount
        heapCount += 1
        heap[index] = slot
        while index > 0 {
            let parent = (index - 1) / 2
            guard isEarlier(heap[index], heap[parent]) else { break }
            heap.swapAt(index, parent)
            index = parent
        }
    }

    private func popEarliest() -> Int {
        let earliest = heap[0]
        heapCount -= 1
        heap[0] = heap[heapCount]
        var index = 0
        while true {
            let left = 2 * index + 1
            guard left < heapCount else { break }
            let right = left + 1
            let child = right < heapCount && isEarlier(heap[right], heap[left]) ? right : left
            guard isEarlier(heap[child], heap[index]) else { break }
            heap.swapAt(index, child)
            index = child
        }
        return earliest
    }
}
