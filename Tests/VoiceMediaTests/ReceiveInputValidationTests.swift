import Testing
import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

@Suite("Receive stream input validation")
struct ReceiveInputValidationTests {
    static let period = FrameDuration.ms20.nanoseconds

    /// Packets for other senders or channels, payload ranges outside the datagram, undecodable
    /// Opus and timestamps or sequence numbers far off the stream's timeline are counted and
    /// ignored; the stream keeps playing its real packets.
    @Test func foreignAndMalformedInputIsCountedAndIgnored() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 3)]))
        var packets = try makePackets(frames) { MediaTime($0) * Self.period + MediaTime.milliseconds(10) }
            .map(\.packet)
        let at = { (index: Int) in MediaTime(index) * Self.period + MediaTime.milliseconds(12) }
        // Another sender, another channel.
        packets.append(
            TimedPacket(
                bytes: try writePacket(sender: 8, sequence: 130, timestamp: 5_000 + 30 * 960, primary: [1, 2]),
                arrival: at(30)))
        packets.append(
            TimedPacket(
                bytes: try writePacket(channel: 4, sequence: 131, timestamp: 5_000 + 31 * 960, primary: [1, 2]),
                arrival: at(31)))
        // An hour off the timeline, and a sequence number far away.
        packets.append(
            TimedPacket(
                bytes: try writePacket(sequence: 140, timestamp: 5_000 + 40 * 960 + 48_000 * 3_600, primary: [1, 2]),
                arrival: at(40)))
        packets.append(
            TimedPacket(
                bytes: try writePacket(sequence: 100 &+ 30_000, timestamp: 5_000 + 41 * 960, primary: [1, 2]),
                arrival: at(41)))
        let harness = try ReceiveHarness()
        let played = harness.run(packets, ticks: frames.count + 10)

        // A view whose ranges point outside the bytes it comes with.
        let stream = harness.stream
        let bytes = packets[20].bytes
        bytes.withUnsafeBytes { raw in
            var view = try! VoicePacketView(parsing: raw)
            view.primary = (raw.count - 2)..<(raw.count + 40)
            stream.insert(view, bytes: raw, arrival: at(20))
            view.primary = 5..<5
            stream.insert(view, bytes: raw, arrival: at(20))
        }
        let statistics = stream.statistics
        #expect(statistics.foreignPackets == 2)
        #expect(statistics.malformedPackets == 4)
        #expect(statistics.packetsReceived == frames.count)
        #expect(statistics.packetsLost == 0 && statistics.concealedSamples == 0)
        #expect(played.allSatisfy { $0.isFinite })
    }

    /// A packet whose Opus payload is garbage is concealed and counted as malformed.
    @Test func undecodablePayloadIsConcealed() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 2)]), inbandFEC: false)
        var broken = frames
        // TOC byte of a code-3 packet claiming 63 frames of 20 ms (1.26 s): libopus refuses it.
        broken[30].primary = [0xFB, 0xFF, 0x00, 0x01]
        let packets = try makePackets(broken) { MediaTime($0) * Self.period + MediaTime.milliseconds(10) }
        let harness = try ReceiveHarness()
        let played = harness.run(packets.map(\.packet), ticks: frames.count + 10)
        let statistics = harness.stream.statistics
        #expect(statistics.malformedPackets == 1)
        #expect(statistics.concealedSamples == 960)
        #expect(played.allSatisfy { $0.isFinite })
    }

    /// A sender that restarts with new numbering is followed after a short run of packets.
    @Test func restartedSenderIsFollowed() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 4)]))
        let first = try makePackets(Array(frames[0..<100])) { MediaTime($0) * Self.period + MediaTime.milliseconds(10) }
        let second = try makePackets(Array(frames[100...]), firstSequence: 40_000, firstTimestamp: 3_000_000_000) {
            MediaTime($0 + 100) * Self.period + MediaTime.milliseconds(10)
        }
        let harness = try ReceiveHarness()
        let played = harness.run((first + second).map(\.packet), ticks: frames.count + 10)
        let statistics = harness.stream.statistics
        #expect(statistics.malformedPackets == 7)
        // Audio plays again near the end.
        let tail = played[((frames.count - 20) * 960)..<((frames.count - 10) * 960)]
        #expect(tail.contains { $0 != 0 })
    }

    @Test func badConfigurationIsRefusedWithAReason() throws {
        var configuration = JitterBufferConfiguration()
        configuration.hardCeilingMilliseconds = 5
        do {
            _ = try VoiceReceiveStream(sender: 1, channel: 1, configuration: configuration)
            Issue.record("a 5 ms ceiling below one 20 ms frame should be refused")
        } catch {
            #expect(error.description.contains("hardCeilingMilliseconds"))
        }
        configuration = JitterBufferConfiguration(targetPercentile: 1.5)
        #expect(throws: CodecError.self) { try VoiceReceiveStream(sender: 1, channel: 1, configuration: configuration) }
    }
}
