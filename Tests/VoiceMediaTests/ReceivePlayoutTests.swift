import Testing
import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

@Suite("Receive stream playout")
struct ReceivePlayoutTests {
    static let frame = 960
    static let period = FrameDuration.ms20.nanoseconds

    static func speechFrames(seconds: Int, inbandFEC: Bool = true) throws -> [EncodedFrame] {
        let speech = try ReceiveFixture.speech()
        return try encodeFrames(Array(speech[0..<(seconds * 48_000)]), inbandFEC: inbandFEC)
    }

    /// In order and without loss, the stream plays exactly what a plain decoder makes of the same
    /// packets, whole frames later; also across a sequence-number wrap and a timestamp wrap.
    @Test(arguments: [
        (UInt16(100), UInt32(5_000)),
        (UInt16(65_500), UInt32.max - UInt32(960 * 40) + 1),
    ])
    func inOrderPlaysThePlainDecode(firstSequence: UInt16, firstTimestamp: UInt32) throws {
        // Without FEC: a stream that carries repair data makes the buffer hold a frame more.
        let frames = try Self.speechFrames(seconds: 4, inbandFEC: false)
        let packets = try makePackets(frames, firstSequence: firstSequence, firstTimestamp: firstTimestamp) {
            MediaTime($0) * Self.period + MediaTime.milliseconds(10)
        }
        let harness = try ReceiveHarness()
        let played = harness.run(packets.map(\.packet), ticks: frames.count + 20)
        let reference = try plainDecode(frames)

        let shift = exactFrameShift(of: reference, in: played, frameSamples: Self.frame, frames: frames.count)
        // The first packet arrives 10 ms into the first period; with no jitter the target is one
        // frame of margin, and playout starts within the band below it, at the next tick.
        #expect(shift == 1, "played audio should be the plain decode one frame (20 ms) later")
        let statistics = harness.stream.statistics
        #expect(statistics.packetsReceived == frames.count)
        #expect(statistics.packetsLost == 0)
        #expect(statistics.packetsLate == 0)
        #expect(statistics.packetsDuplicated == 0)
        #expect(statistics.recoveredByFEC == 0 && statistics.recoveredByRedundancy == 0)
        #expect(statistics.concealedSamples == 0)
        #expect(statistics.framesDropped == 0 && statistics.framesInserted == 0)
        #expect(statistics.framesDroppedForCatchUp == 0)
        #expect(statistics.malformedPackets == 0 && statistics.foreignPackets == 0)
        // Arrivals are exactly periodic: no jitter, and every frame waited the same 10 ms.
        #expect(statistics.jitterMilliseconds < 0.01)
        #expect(abs(statistics.meanBufferingDelayMilliseconds - 10) < 0.01)
        #expect(abs(statistics.currentDelayMilliseconds - 10) < 0.01)
        #expect(harness.stream.makeReport(reporter: 9).fractionLost == 0)
    }

    /// Packets swapped in pairs and copies of packets (some arriving long after playout) are
    /// counted exactly and change nothing that is played.
    @Test func reorderedAndDuplicatedPackets() throws {
        let frames = try Self.speechFrames(seconds: 4)
        // Every odd frame overtakes the even one before it by 5 ms.
        var packets = try makePackets(frames) { index in
            MediaTime(index) * Self.period + MediaTime.milliseconds(index % 2 == 1 ? 5 : 30)
        }
        var duplicates = 0
        for (frame, packet) in packets where frame % 5 == 0 {
            var copy = packet
            copy.arrival += frame % 25 == 0 ? MediaTime.milliseconds(1_000) : MediaTime.milliseconds(3)
            packets.append((frame, copy))
            duplicates += 1
        }
        let harness = try ReceiveHarness(configuration: JitterBufferConfiguration(minimumDelayMilliseconds: 60))
        let played = harness.run(packets.map(\.packet), ticks: frames.count + 30)
        let statistics = harness.stream.statistics
        #expect(statistics.packetsReceived == frames.count)
        #expect(statistics.packetsDuplicated == duplicates)
        #expect(statistics.packetsLate == 0)
        #expect(statistics.packetsLost == 0)
        #expect(statistics.concealedSamples == 0)
        if statistics.framesDropped == 0 && statistics.framesInserted == 0 {
            #expect(
                exactFrameShift(of: try plainDecode(frames), in: played, frameSamples: Self.frame, frames: frames.count)
                    != nil)
        }
    }

    /// A packet that comes after its frame was played counts as late and as lost (nothing else
    /// carried it: no FEC, no redundancy), and is concealed once.
    @Test func latePacketIsCountedAndConcealed() throws {
        let frames = try Self.speechFrames(seconds: 4, inbandFEC: false)
        let packets = try makePackets(frames) { index in
            MediaTime(index) * Self.period + MediaTime.milliseconds(index == 60 ? 400 : 10)
        }
        let harness = try ReceiveHarness(configuration: JitterBufferConfiguration(minimumDelayMilliseconds: 60))
        _ = harness.run(packets.map(\.packet), ticks: frames.count + 30)
        let statistics = harness.stream.statistics
        #expect(statistics.packetsReceived == frames.count)
        #expect(statistics.packetsLate == 1)
        #expect(statistics.packetsLost == 1)
        #expect(statistics.concealedSamples == Self.frame)
        #expect(statistics.recoveredByFEC == 0)
    }

    /// A pause the sender did not send (DTX: timestamps jump, sequence numbers do not) is
    /// silence, neither loss nor concealment, whether or not the last packet before it still
    /// said "speaking"; the next talk spurt starts at the target delay.
    @Test(arguments: [false, true])
    func dtxPauseIsNotLoss(lastPacketSpeaking: Bool) throws {
        let frames = try Self.speechFrames(seconds: 6)
        let pause = Set(100..<150)
        let packets = try makePackets(frames, unsent: pause, quiet: lastPacketSpeaking ? [] : [99]) {
            MediaTime($0) * Self.period + MediaTime.milliseconds(10)
        }
        let harness = try ReceiveHarness()
        let played = harness.run(packets.map(\.packet), ticks: frames.count + 20)
        let statistics = harness.stream.statistics
        #expect(statistics.packetsReceived == frames.count - pause.count)
        #expect(statistics.packetsLost == 0)
        #expect(statistics.concealedSamples == 0)
        #expect(statistics.recoveredByFEC == 0)
        #expect(statistics.packetsLate == 0)
        #expect(harness.stream.makeReport(reporter: 1).fractionLost == 0)
        // Deep in the pause the output is digital silence.
        let middle = (125 + 2) * Self.frame
        #expect(played[middle..<middle + Self.frame].allSatisfy { $0 == 0 })
        // The talk spurt after the pause plays on time again.
        let error = statistics.playoutDelayMilliseconds - statistics.targetDelayMilliseconds
        #expect(error >= -17 && error <= 7)
    }

    /// A muted player's stream is skipped, not decoded: its buffer stays bounded and it counts on.
    @Test func skippingKeepsTheBufferBounded() throws {
        let frames = try Self.speechFrames(seconds: 4)
        let packets = try makePackets(frames) { MediaTime($0) * Self.period + MediaTime.milliseconds(10) }
        let stream = try VoiceReceiveStream(sender: 7, channel: 3, configuration: JitterBufferConfiguration())
        var next = 0
        var maximumDelay = 0.0
        for tick in 0..<(frames.count + 10) {
            let now = MediaTime(tick) * Self.period
            while next < packets.count && packets[next].packet.arrival <= now {
                packets[next].packet.bytes.withUnsafeBytes { bytes in
                    stream.insert(
                        try! VoicePacketView(parsing: bytes), bytes: bytes, arrival: packets[next].packet.arrival)
                }
                next += 1
            }
            stream.skipFrame(at: now)
            if tick < frames.count - 5 {
                maximumDelay = max(maximumDelay, stream.statistics.playoutDelayMilliseconds)
            }
        }
        #expect(maximumDelay < 60)
        #expect(stream.statistics.packetsLost == 0)
        #expect(stream.statistics.totalSamplesPlayed > (frames.count - 5) * Self.frame)
        // Unmuted again: decoding restarts cleanly.
        var output = [Float](repeating: 1, count: Self.frame)
        output.withUnsafeMutableBufferPointer {
            stream.pullFrame(into: $0, at: MediaTime(frames.count + 10) * Self.period)
        }
        #expect(output.allSatisfy { $0.isFinite })
    }
}

/// A player nobody listens to (muted) is skipped, not decoded: its meter falls and it stops
/// "speaking", rather than freezing at the last level heard.
@Suite struct ReceiveSkippedMeterTests {
    @Test func aSkippedStreamsMeterFallsAndItStopsSpeaking() throws {
        let frames = try ReceivePlayoutTests.speechFrames(seconds: 4, inbandFEC: false)
        let packets = try makePackets(frames) { MediaTime($0) * ReceivePlayoutTests.period }
        let harness = try ReceiveHarness()
        _ = harness.run(Array(packets.map(\.packet).prefix(100)), ticks: 100)
        let heard = harness.stream.meter.rmsDBFS
        #expect(heard > -40, "speech was heard at \(heard) dBFS")
        // Still arriving, but skipped, for two seconds.
        for tick in 100..<200 {
            packets[tick].packet.bytes.withUnsafeBytes { bytes in
                if let view = try? VoicePacketView(parsing: bytes) {
                    harness.stream.insert(view, bytes: bytes, arrival: packets[tick].packet.arrival)
                }
            }
            harness.stream.skipFrame(at: MediaTime(tick) * ReceivePlayoutTests.period)
        }
        #expect(harness.stream.meter.rmsDBFS < heard - 25, "the meter held \(harness.stream.meter.rmsDBFS) dBFS")
        #expect(!harness.stream.isSpeaking)
    }
}
