import Testing
import VoiceCore

@testable import VoiceEngine

@Suite struct DatagramQueueTests {
    @Test func datagramsComeOutInOrderWithTheirLabels() {
        let queue = DatagramQueue<Int>(capacity: 4, slotBytes: 8)
        for value in 0..<3 { #expect(push(queue, bytes(value, count: value + 1), label: value)) }
        var popped: [(bytes: [UInt8], label: Int)] = []
        #expect(queue.drain { popped.append((Array($0), $1)) } == 3)
        #expect(popped.map(\.label) == [0, 1, 2])
        #expect(popped.map(\.bytes) == (0..<3).map { Array(bytes($0, count: $0 + 1)) })
        #expect(!queue.pop { _, _ in Issue.record("the queue is empty") })
    }

    @Test func aFullQueueAndAnOversizedDatagramAreRefusedAndCounted() {
        let queue = DatagramQueue<Int>(capacity: 3, slotBytes: 8)
        #expect(queue.capacity == 4, "rounded up to a power of two")
        for value in 0..<4 { #expect(push(queue, bytes(value, count: 8), label: value)) }
        #expect(!push(queue, bytes(9, count: 1), label: 9), "full")
        #expect(queue.drain { _, _ in } == 4)
        #expect(!push(queue, bytes(9, count: 9), label: 9), "larger than a slot")
        #expect(queue.refusedFullCount == 1 && queue.refusedOversizedCount == 1)
        // Slots are reused after a lap; nothing refused is left behind.
        #expect(push(queue, bytes(5, count: 2), label: 5))
        var labels: [Int] = []
        queue.drain { labels.append($1) }
        #expect(labels == [5])
    }

    /// Four threads push at once while one pops: every datagram arrives once, intact, and each
    /// thread's in the order it pushed them.
    @Test func concurrentProducersLoseAndTearNothing() async {
        let queue = DatagramQueue<Int>(capacity: 64, slotBytes: 16)
        let producers = 4
        let perProducer = 5_000
        var seen = [Int](repeating: -1, count: producers)
        var received = 0
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for sequence in 0..<perProducer {
                        let label = producer * perProducer + sequence
                        let payload = bytes(label, count: 16)
                        while !push(queue, payload, label: label) { await Task.yield() }
                    }
                }
            }
            while received < producers * perProducer {
                let popped = queue.drain { datagram, label in
                    #expect(Array(datagram) == Array(bytes(label, count: 16)), "a torn datagram")
                    let producer = label / perProducer
                    #expect(label % perProducer == seen[producer] + 1, "out of order")
                    seen[producer] = label % perProducer
                    received += 1
                }
                if popped == 0 { await Task.yield() }
            }
        }
        #expect(seen == [Int](repeating: perProducer - 1, count: producers))
    }
}

private func push(_ queue: DatagramQueue<Int>, _ datagram: [UInt8], label: Int) -> Bool {
    datagram.withUnsafeBytes { queue.push($0, label: label) }
}

/// `count` bytes that tell `value` apart from its neighbours.
private func bytes(_ value: Int, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value &* 31 &+ $0) }
}
