import Testing
import VoiceCodec
import VoiceSimulation

/// Drives a `SpeexJitterBuffer` one 20 ms frame per tick, as the baseline receiver does.
struct SpeexJitterBufferHarness: ~Copyable {
    static let frame = 960
    var buffer: SpeexJitterBuffer
    var output = [UInt8](repeating: 0, count: 1500)

    init() throws { buffer = try SpeexJitterBuffer(stepSamples: Self.frame) }

    /// Packet `index` carries its index in its first byte and stamps index × 960.
    mutating func put(_ index: Int) throws {
        let bytes: [UInt8] = [UInt8(truncatingIfNeeded: index), 0xAB, 0xCD]
        try bytes.withUnsafeBytes { raw in
            try buffer.put(
                raw, timestamp: UInt32(index * Self.frame), span: UInt32(Self.frame),
                sequence: UInt16(truncatingIfNeeded: index))
        }
    }

    /// One playout frame: get, then tick. Returns the status and the frame index it is about.
    mutating func play() throws -> (status: SpeexJitterBuffer.Status, index: Int, firstByte: UInt8) {
        let packet = try output.withUnsafeMutableBytes { raw in try buffer.get(desiredSpan: Self.frame, into: raw) }
        buffer.tick()
        return (packet.status, Int(packet.timestamp) / Self.frame, output[0])
    }
}

@Suite struct SpeexJitterBufferTests {
    /// Packet `tick` arrives at `tick`; playout starts `delay` frames later.
    func playOut(arrivals: (Int) -> [Int], ticks: Int, delay: Int = 3) throws -> [(
        status: SpeexJitterBuffer.Status, index: Int, firstByte: UInt8
    )] {
        var harness = try SpeexJitterBufferHarness()
        var played: [(status: SpeexJitterBuffer.Status, index: Int, firstByte: UInt8)] = []
        for tick in 0..<ticks {
            for index in arrivals(tick) { try harness.put(index) }
            if tick >= delay { played.append(try harness.play()) }
        }
        return played
    }

    @Test func emptyBufferReportsMissing() throws {
        var harness = try SpeexJitterBufferHarness()
        #expect(try harness.play().status == .missing)
        #expect(harness.buffer.availableCount() == 0)
    }

    @Test func inOrderPacketsComeOutInOrderAfterTheDelay() throws {
        let played = try playOut(arrivals: { [$0] }, ticks: 43)
        #expect(played.count == 40)
        for (position, frame) in played.enumerated() {
            #expect(frame.status == .ok)
            #expect(frame.index == position)
            #expect(frame.firstByte == UInt8(position))
        }
    }

    @Test func missingPacketYieldsMissingStatus() throws {
        let played = try playOut(arrivals: { $0 == 10 ? [] : [$0] }, ticks: 33)
        #expect(played[10].status == .missing)
        #expect(played[10].index == 10)
        for (position, frame) in played.enumerated() where position != 10 {
            #expect(frame.status == .ok && frame.index == position)
        }
    }

    @Test func reorderedPacketsArePutBackInOrder() throws {
        // 20 and 21 swap; 30, 31, 32 arrive as 32, 30, 31.
        let arrivalOrder: [Int: [Int]] = [20: [21], 21: [20], 30: [32], 31: [30], 32: [31]]
        let played = try playOut(arrivals: { arrivalOrder[$0] ?? [$0] }, ticks: 43)
        for (position, frame) in played.enumerated() {
            #expect(frame.status == .ok)
            #expect(frame.index == position)
            #expect(frame.firstByte == UInt8(position))
        }
    }

    /// With no initial delay and up to three frames of jitter, the library's adaptive delay grows
    /// (insertions) and then plays nearly everything, in order.
    @Test func adaptsItsDelayToJitter() throws {
        var random = SeededRandom(seed: 3)
        var arrivals: [Int: [Int]] = [:]
        for index in 0..<400 { arrivals[index + Int(random.next() % 4), default: []].append(index) }
        let played = try playOut(arrivals: { arrivals[$0] ?? [] }, ticks: 400, delay: 0)
        #expect(played.contains { $0.status == .insertion })
        let decoded = played.filter { $0.status == .ok }.map(\.index)
        #expect(zip(decoded, decoded.dropFirst()).allSatisfy { $0 < $1 })
        #expect(decoded.count > 360)
    }

    @Test func resetForgetsStoredPackets() throws {
        var harness = try SpeexJitterBufferHarness()
        for index in 0..<5 { try harness.put(index) }
        #expect(harness.buffer.availableCount() == 5)
        harness.buffer.reset()
        #expect(harness.buffer.availableCount() == 0)
        try harness.put(100)
        let frame = try harness.play()
        #expect(frame.status == .ok && frame.index == 100)
        #expect(harness.buffer.pointerTimestamp() == 101 * 960)
    }

    @Test func settingsRoundTrip() throws {
        var buffer = try SpeexJitterBuffer()
        buffer.setMargin(480)
        #expect(buffer.margin() == 480)
        buffer.setMaximumLateRate(5)
        #expect(buffer.maximumLateRate() == 5)
        buffer.setConcealmentSize(480)
        #expect(buffer.concealmentSize() == 480)
        #expect(buffer.delayStep() == 960)
    }

    @Test func badArgumentsAreRejected() throws {
        #expect(throws: CodecError.self) { _ = try SpeexJitterBuffer(stepSamples: 0) }
        var buffer = try SpeexJitterBuffer(maximumPacketBytes: 4)
        let large = [UInt8](repeating: 0, count: 5)
        #expect(throws: CodecError.self) {
            try large.withUnsafeBytes { try buffer.put($0, timestamp: 0, span: 960) }
        }
        var small = [UInt8](repeating: 0, count: 3)
        #expect(throws: CodecError.self) {
            try small.withUnsafeMutableBytes { try buffer.get(desiredSpan: 960, into: $0) }
        }
    }
}
