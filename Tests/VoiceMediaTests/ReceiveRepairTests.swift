import Testing
import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Receive stream repairs")
struct ReceiveRepairTests {
    static let frame = 960
    static let period = FrameDuration.ms20.nanoseconds

    static func arrival(_ index: Int) -> MediaTime { MediaTime(index) * period + MediaTime.milliseconds(10) }

    /// Enough buffering that the packets after a burst of three are there when it plays.
    static let roomy = JitterBufferConfiguration(minimumDelayMilliseconds: 100)

    /// A packet that comes just after its frame was concealed is decoded unheard, so that the
    /// frames after it decode from the sender's state: they come out as a clean decode makes them,
    /// near enough, where after a packet that never came the concealment's error fades out over
    /// several frames.
    @Test func aPacketLateForItsConcealedFrameSetsTheDecoderRight() throws {
        let speech = try ReceiveFixture.speech()
        let frames = try encodeFrames(Array(speech[0..<(4 * 48_000)]), inbandFEC: false)
        let configuration = JitterBufferConfiguration(minimumDelayMilliseconds: 60)
        let reference = try plainDecode(frames)
        let packets = try makePackets(frames, arrival: Self.arrival).map(\.packet)
        let clean = try ReceiveHarness(configuration: configuration).run(packets, ticks: frames.count + 20)
        let shift = try #require(
            exactFrameShift(of: reference, in: clean, frameSamples: Self.frame, frames: frames.count))
        // A frame inside speech, and the tick it plays at.
        let late = 100
        let playsAt = late + shift
        try #require(rms(reference[(late * Self.frame)..<((late + 1) * Self.frame)]) > 0.01)

        func run(_ arrival: MediaTime?) throws -> (played: [Float], statistics: ReceiveStatistics) {
            var delivered = packets
            if let arrival { delivered[late].arrival = arrival } else { delivered.remove(at: late) }
            let harness = try ReceiveHarness(configuration: configuration)
            return (harness.run(delivered, ticks: frames.count + 20), harness.stream.statistics)
        }
        // 5 ms after the tick that conceals its frame, before the next one.
        let arrivedLate = try run(MediaTime(playsAt) * Self.period + MediaTime.milliseconds(5))
        let neverCame = try run(nil)
        #expect(arrivedLate.statistics.packetsLate == 1)
        #expect(arrivedLate.statistics.lateFramesDecoded == 1)
        #expect(neverCame.statistics.lateFramesDecoded == 0)

        // The four frames after the concealed one, against what a clean decode plays there.
        let after = ((playsAt + 1) * Self.frame)..<((playsAt + 5) * Self.frame)
        let expected = reference[(after.lowerBound - shift * Self.frame)..<(after.upperBound - shift * Self.frame)]
        func error(_ played: [Float]) -> Float { rms(zip(played[after], expected).map { $0 - $1 }[...]) }
        // Not bit for bit: the decoder smooths its first frame after a concealment.
        #expect(error(arrivedLate.played) < 0.1 * rms(expected), "\(error(arrivedLate.played)) of \(rms(expected))")
        #expect(error(neverCame.played) > 3 * error(arrivedLate.played))
        // What was played up to and including the concealed frame is the same either way.
        let before = 0..<((playsAt + 1) * Self.frame)
        #expect(arrivedLate.played[before] == neverCame.played[before])
    }

    private func rms(_ samples: ArraySlice<Float>) -> Float {
        (samples.reduce(0) { $0 + $1 * $1 } / Float(max(samples.count, 1))).squareRoot()
    }

    static func run(
        _ frames: [EncodedFrame], losing lost: Set<Int>, redundancyDepth: Int,
        configuration: JitterBufferConfiguration = roomy
    )
        throws -> (played: [Float], stream: VoiceReceiveStream)
    {
        let packets = try makePackets(frames, redundancyDepth: redundancyDepth, arrival: arrival)
            .filter { !lost.contains($0.frame) }
        let harness = try ReceiveHarness(configuration: configuration)
        let played = harness.run(packets.map(\.packet), ticks: frames.count + 20)
        return (played, harness.stream)
    }

    /// Each lost frame whose copy a later packet carries comes back from that copy; a frame
    /// whose copies were all lost too is concealed. Counts match the losses exactly.
    @Test func redundantCopiesRepairLosses() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 5)]), inbandFEC: false)
        // Three single losses, a burst of two and a burst of three; two copies ride on each packet.
        let lost: Set<Int> = [40, 80, 120, 160, 161, 200, 201, 202]
        let (_, stream) = try Self.run(frames, losing: lost, redundancyDepth: 2)
        let statistics = stream.statistics
        #expect(statistics.packetsReceived == frames.count - lost.count)
        #expect(statistics.recoveredByRedundancy == 7)  // all but frame 200, whose copies rode on 201 and 202
        #expect(statistics.recoveredByFEC == 0)
        #expect(statistics.packetsLost == 1)
        #expect(statistics.concealedSamples == Self.frame)

        let report = stream.makeReport(reporter: 2)
        #expect(report.source == 7 && report.channel == 3 && report.reporter == 2)
        #expect(abs(report.fractionLost - Float(lost.count) / Float(frames.count)) < 1e-6)
        #expect(abs(report.meanBurstLength - Float(lost.count) / 5) < 1e-6)
        #expect(report.cumulativeLost == UInt32(lost.count))
        #expect(report.highestSequence == UInt16(100 + frames.count - 1))
        // The next interval starts from zero.
        #expect(stream.makeReport(reporter: 2).fractionLost == 0)
    }

    /// Loss the sender's protection cannot repair asks for an early report, and loss its copies
    /// cover waits for the regular one: without copies every burst asks; with the two previous
    /// frames copied, a burst of two does not and a burst of three does. A report clears it.
    @Test func lossPastTheProtectionAsksForAnEarlyReport() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 2)]), inbandFEC: false)
        let cases: [(depth: Int, lost: Set<Int>, asks: Bool)] = [
            (0, [40], true), (2, [40, 41], false), (2, [40, 41, 42], true),
        ]
        for (depth, lost, asks) in cases {
            let packets = try makePackets(frames, redundancyDepth: depth, arrival: Self.arrival)
                .filter { !lost.contains($0.frame) }
            var harness = try ReceiveHarness(configuration: Self.roomy)
            nonisolated(unsafe) var firstAsked: Int?
            harness.observe = { tick, stream in
                if firstAsked == nil && stream.hasUnrepairableLoss { firstAsked = tick }
            }
            _ = harness.run(packets.map(\.packet), ticks: frames.count + 20)
            #expect((firstAsked != nil) == asks, "copies \(depth), lost \(lost.sorted())")
            #expect(harness.stream.hasUnrepairableLoss == asks)
            _ = harness.stream.makeReport(reporter: 2)
            #expect(!harness.stream.hasUnrepairableLoss)
        }
    }

    /// One copy six frames back repairs every burst up to six long, and the stream holds the
    /// six frames that takes on its own: it reads the reach from the packets. A burst of seven
    /// loses its first frame; a packet's frame whose far copy rode in a lost packet is concealed.
    @Test func aFarCopyRepairsLongBursts() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 5)]), inbandFEC: false)
        let bursts = [(60, 3), (100, 6), (150, 7), (200, 1)]
        let lost = Set(bursts.flatMap { start, length in start..<(start + length) })
        let packets = try makePackets(frames, copyOffsets: [6], arrival: Self.arrival).filter {
            !lost.contains($0.frame)
        }
        // A budget with room to hold six frames for the copy (the shipped one has not).
        let harness = try ReceiveHarness(configuration: JitterBufferConfiguration(bufferingMilliseconds: 200))
        _ = harness.run(packets.map(\.packet), ticks: frames.count + 20)
        let statistics = harness.stream.statistics
        #expect(statistics.recoveredByRedundancy == lost.count - 1)
        #expect(statistics.packetsLost == 1)
        #expect(statistics.targetDelayMilliseconds >= 6 * 20)

        // Under the shipped budget the target stops at the budget's ceiling, and says so.
        let budgeted = try ReceiveHarness(configuration: JitterBufferConfiguration())
        _ = budgeted.run(packets.map(\.packet), ticks: frames.count + 20)
        let ceiling = DelayBudget.standard(frameDuration: .ms20).bufferingMilliseconds
        #expect(budgeted.stream.statistics.targetDelayMilliseconds == ceiling)
        #expect(budgeted.stream.statistics.targetCeilingMilliseconds == ceiling)
        #expect(budgeted.stream.statistics.wantedTargetMilliseconds >= 7 * 20)
        #expect(budgeted.stream.statistics.repairDelayMilliseconds == 6 * 20)

        // The same losses with the previous two frames' copies: only the single loss and the last
        // two frames of each burst come back.
        let near = try makePackets(frames, redundancyDepth: 2, arrival: Self.arrival).filter {
            !lost.contains($0.frame)
        }
        let nearHarness = try ReceiveHarness(configuration: JitterBufferConfiguration())
        _ = nearHarness.run(near.map(\.packet), ticks: frames.count + 20)
        #expect(nearHarness.stream.statistics.recoveredByRedundancy == 2 + 2 + 2 + 1)
    }

    /// Checks that `stream`'s report counts one lost packet of `frames`, as a burst of one.
    static func expectOneLossReported(
        by stream: VoiceReceiveStream, frames: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let report = stream.makeReport(reporter: 2)
        #expect(report.cumulativeLost == 1, sourceLocation: sourceLocation)
        #expect(abs(report.fractionLost - 1 / Float(frames)) < 1e-6, sourceLocation: sourceLocation)
        #expect(report.meanBurstLength == 1, sourceLocation: sourceLocation)
    }

    /// A packet that comes after its frame was played is late, not lost: the report (like an
    /// RTCP one) counts only what never came, so a listener that stalled does not make the sender
    /// pay for protection that cannot help.
    @Test func latePacketsAreNotReportedAsLost() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 2)]), inbandFEC: false)
        // Frame 50 arrives 300 ms late, frame 70 never.
        let packets = try makePackets(frames) { index in
            Self.arrival(index) + (index == 50 ? MediaTime.milliseconds(300) : 0)
        }.filter { $0.frame != 70 }
        let harness = try ReceiveHarness(configuration: JitterBufferConfiguration())
        _ = harness.run(packets.map(\.packet), ticks: frames.count + 20)
        let statistics = harness.stream.statistics
        #expect(statistics.packetsLate == 1)
        Self.expectOneLossReported(by: harness.stream, frames: frames.count)
    }

    /// A sender that stalled sends what it captured meanwhile all at once: the first of those
    /// packets come after their frames were played, before any later packet marks them missing.
    /// They were received late, not lost, and ask for no early report.
    @Test func packetsLateBeforeTheirGapIsSeenAreNotReportedAsLost() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 2)]), inbandFEC: false)
        // Frames 50…64 leave together when the sender resumes, 280 ms late for the first; 70 never.
        let packets = try makePackets(frames) { index in
            Self.arrival((50...64).contains(index) ? 64 : index)
        }.filter { $0.frame != 70 }
        var harness = try ReceiveHarness(configuration: JitterBufferConfiguration())
        nonisolated(unsafe) var askedBeforeTheLoss = false
        harness.observe = { tick, stream in
            if tick < 70 && stream.hasUnrepairableLoss { askedBeforeTheLoss = true }
        }
        _ = harness.run(packets.map(\.packet), ticks: frames.count + 20)
        #expect(harness.stream.statistics.packetsLate >= 5)
        #expect(!askedBeforeTheLoss)
        Self.expectOneLossReported(by: harness.stream, frames: frames.count)
    }

    /// Without redundancy, a lost frame comes back from the next packet's in-band FEC exactly
    /// when that packet carries FEC, and is concealed otherwise.
    @Test func inbandFECRepairsWhenPresent() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 8)]), inbandFEC: true)
        let lost = Set(stride(from: 20, to: frames.count - 5, by: 9))
        let withFEC = lost.filter { index in
            frames[index + 1].primary.withUnsafeBufferPointer { (try? OpusDecoder.hasInbandFEC($0)) == true }
        }
        #expect(withFEC.count > lost.count / 2, "the fixture's speech should carry FEC in most packets")
        let (_, stream) = try Self.run(frames, losing: lost, redundancyDepth: 0)
        let statistics = stream.statistics
        #expect(statistics.recoveredByFEC == withFEC.count)
        #expect(statistics.recoveredByRedundancy == 0)
        #expect(statistics.packetsLost == lost.count - withFEC.count)
        #expect(statistics.concealedSamples == (lost.count - withFEC.count) * Self.frame)
    }

    /// With neither redundancy nor FEC, every loss is concealed, and only losses are.
    @Test func concealmentWhenNothingElseExists() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 4)]), inbandFEC: false)
        let lost: Set<Int> = [30, 31, 90, 150]
        let (played, stream) = try Self.run(frames, losing: lost, redundancyDepth: 0)
        let statistics = stream.statistics
        #expect(statistics.packetsLost == lost.count)
        #expect(statistics.concealedSamples == lost.count * Self.frame)
        #expect(statistics.recoveredByFEC == 0 && statistics.recoveredByRedundancy == 0)
        #expect(played.allSatisfy { $0.isFinite && abs($0) <= 1.5 })
    }

    /// Redundancy comes before FEC: with both present every single loss uses the copy.
    @Test func redundancyIsPreferredOverFEC() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 4)]), inbandFEC: true)
        let lost: Set<Int> = [25, 70, 110, 170]
        let (_, stream) = try Self.run(frames, losing: lost, redundancyDepth: 1)
        #expect(stream.statistics.recoveredByRedundancy == lost.count)
        #expect(stream.statistics.recoveredByFEC == 0)
        #expect(stream.statistics.packetsLost == 0)
    }

    /// Decoding redundant copies with the stream's own decoder joins them to the audio around
    /// them better than a decoder of their own does (measured against the loss-free decode, over
    /// each repaired frame and the two after it).
    @Test func mainDecoderGivesBetterContinuityForRedundantCopies() throws {
        let speech = try ReceiveFixture.speech()
        let frames = try encodeFrames(Array(speech[0..<(48_000 * 12)]), inbandFEC: false)
        let reference = try plainDecode(frames)
        let lost = Set(stride(from: 15, to: frames.count - 5, by: 11))
        var scores: [JitterBufferConfiguration.RedundancyDecoding: Double] = [:]
        for choice in JitterBufferConfiguration.RedundancyDecoding.allCases {
            var configuration = Self.roomy
            configuration.redundancyDecoding = choice
            let (played, stream) = try Self.run(frames, losing: lost, redundancyDepth: 1, configuration: configuration)
            #expect(stream.statistics.recoveredByRedundancy == lost.count)
            let shift = try #require(
                exactFrameShift(of: reference, in: played, frameSamples: Self.frame, frames: lost.min()!))
            var signal = 0.0
            var error = 0.0
            for index in lost {
                let range = (index * Self.frame)..<((index + 3) * Self.frame)
                for sample in range {
                    let value = Double(reference[sample])
                    let difference = value - Double(played[sample + shift * Self.frame])
                    signal += value * value
                    error += difference * difference
                }
            }
            scores[choice] = 10 * log10(signal / max(error, 1e-20))
        }
        let main = try #require(scores[.mainDecoder])
        let separate = try #require(scores[.separateDecoder])
        print("redundant-copy repair, SNR over repaired frame + 2: main decoder \(main) dB, separate \(separate) dB")
        #expect(main > separate)
    }
}
