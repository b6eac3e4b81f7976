import Foundation
import Synchronization
import Testing
import VoiceCore

@Suite("AudioRing")
struct AudioRingTests {
    private func write(_ samples: [Float], to ring: AudioRing) -> Int {
        samples.withUnsafeBufferPointer { ring.write($0) }
    }

    private func read(_ frames: Int, from ring: AudioRing) -> [Float] {
        var buffer = [Float](repeating: .nan, count: frames * ring.channels)
        let count = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        return Array(buffer[0..<count * ring.channels])
    }

    @Test(
        "capacity is rounded up to a power of two",
        arguments: [(1, 1), (2, 2), (3, 4), (480, 512), (1_024, 1_024), (1_025, 2_048)])
    func capacityRounding(minimum: Int, expected: Int) {
        let ring = AudioRing(channels: 2, minimumFrames: minimum)
        #expect(ring.capacityFrames == expected)
        #expect(ring.availableToWrite == expected)
        #expect(ring.availableToRead == 0)
    }

    @Test("frames come out in order across the wrap-around")
    func wrapAround() {
        let ring = AudioRing(channels: 2, minimumFrames: 8)
        for round in 0..<5 {
            let samples = (0..<12).map { Float(round * 100 + $0) }
            #expect(write(samples, to: ring) == 6)
            #expect(ring.availableToRead == 6)
            #expect(read(6, from: ring) == samples)
            #expect(ring.availableToWrite == 8)
        }
    }

    @Test("a full ring takes only what fits, in whole frames")
    func partialWrites() {
        let ring = AudioRing(channels: 2, minimumFrames: 8)
        let samples = (0..<20).map(Float.init)
        #expect(write(samples, to: ring) == 8)
        #expect(ring.availableToWrite == 0)
        #expect(write([1, 2], to: ring) == 0)
        #expect(read(3, from: ring) == Array(samples[0..<6]))
        // Five samples are two whole frames; the odd one is not taken.
        #expect(write([100, 101, 102, 103, 104], to: ring) == 2)
        #expect(read(10, from: ring) == Array(samples[6..<16]) + [100, 101, 102, 103])
        #expect(read(1, from: ring) == [])
    }

    @Test("reading an empty ring or into an empty buffer returns nothing")
    func emptyReads() {
        let ring = AudioRing(channels: 1, minimumFrames: 4)
        #expect(read(4, from: ring) == [])
        _ = write([1, 2], to: ring)
        #expect(ring.read(into: UnsafeMutableBufferPointer(start: nil, count: 0)) == 0)
        #expect(ring.write(UnsafeBufferPointer(start: nil, count: 0)) == 0)
        #expect(ring.availableToRead == 2)
    }

    @Test("discard drops the oldest frames, never more than there are")
    func discard() {
        let ring = AudioRing(channels: 1, minimumFrames: 8)
        _ = write([1, 2, 3, 4, 5], to: ring)
        #expect(ring.discard(frames: 3) == 3)
        #expect(ring.availableToRead == 2)
        #expect(read(8, from: ring) == [4, 5])
        _ = write([6, 7], to: ring)
        #expect(ring.discard(frames: 10) == 2)
        #expect(ring.discard(frames: 1) == 0)
        #expect(ring.availableToWrite == 8)
    }

    @Test("writeSilence writes zeros, as many frames as fit")
    func writeSilence() {
        let ring = AudioRing(channels: 2, minimumFrames: 4)
        _ = write([9, 9, 9, 9, 9, 9, 9, 9], to: ring)
        _ = read(4, from: ring)
        _ = write([1, 1], to: ring)
        // The storage still holds nines where the silence goes: it must be overwritten.
        #expect(ring.writeSilence(frames: 10) == 3)
        #expect(ring.writeSilence(frames: 1) == 0)
        #expect(read(4, from: ring) == [1, 1, 0, 0, 0, 0, 0, 0])
    }

    @Test("between two threads every sample of a long sequence arrives once, in order")
    func twoThreadStress() async throws {
        // Floats count exactly up to 2^24; four million samples stay far below.
        let total = 4_000_000
        let ring = AudioRing(channels: 2, minimumFrames: 1_000)
        let producerDone = Atomic<Bool>(false)
        let producer = Thread {
            var buffer = [Float](repeating: 0, count: 2 * 777)
            var next = 0
            var chunk = 1
            while next < total {
                let samples = min(2 * chunk, total - next)
                for index in 0..<samples { buffer[index] = Float(next + index) }
                var written = 0
                while written < samples / 2 {
                    let frames = buffer.withUnsafeBufferPointer { pointer in
                        ring.write(UnsafeBufferPointer(rebasing: pointer[2 * written..<samples]))
                    }
                    if frames == 0 { sched_yield() }
                    written += frames
                }
                next += samples
                chunk = chunk % 777 + 1
            }
            producerDone.store(true, ordering: .releasing)
        }
        producer.start()

        var expected = 0
        var mismatches = 0
        var buffer = [Float](repeating: 0, count: 2 * 500)
        var request = 1
        while expected < total {
            let frames = buffer.withUnsafeMutableBufferPointer { pointer in
                ring.read(into: UnsafeMutableBufferPointer(rebasing: pointer[0..<2 * request]))
            }
            if frames == 0 {
                sched_yield()
                continue
            }
            for index in 0..<2 * frames where buffer[index] != Float(expected + index) { mismatches += 1 }
            expected += 2 * frames
            request = request % 500 + 1
        }
        while !producerDone.load(ordering: .acquiring) { sched_yield() }
        #expect(mismatches == 0)
        #expect(expected == total)
        #expect(ring.availableToRead == 0)
    }
}
