import Testing
import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceSimulation
import VoiceWire

@Suite("Receive stream over a simulated network")
struct ReceiveSimulatedNetworkTests {
    /// Bursty loss, jitter and duplicates from the seeded network: every frame the network lost
    /// is accounted for exactly once, as repaired (redundancy, FEC) or lost, and every copy
    /// as a duplicate.
    @Test(arguments: [FrameDuration.ms20, .ms10])
    func everyLostFrameIsAccountedFor(frameDuration: FrameDuration) throws {
        let speech = try ReceiveFixture.speech()
        let frames = try encodeFrames(speech, frameDuration: frameDuration, inbandFEC: true)
        let frameSamples = frameDuration.engineFrames
        let packets = try makePackets(frames, frameSamples: frameSamples, redundancyDepth: 2) { _ in 0 }
        let network = SimulatedNetwork(
            conditions: NetworkConditions(
                lossRate: 0.1, meanBurstLength: 2, baseDelayMilliseconds: 20, jitterMilliseconds: 20,
                duplicateRate: 0.05),
            seed: 11)
        let stream = try VoiceReceiveStream(
            sender: 7, channel: 3, configuration: JitterBufferConfiguration(frameDuration: frameDuration))
        var output = [Float](repeating: 0, count: frameSamples)
        let ticks = frames.count + 30
        for tick in 0..<ticks {
            let now = MediaTime(tick) * frameDuration.nanoseconds
            if tick < packets.count {
                packets[tick].packet.bytes.withUnsafeBytes { network.send($0, at: now) }
            }
            network.deliver(until: now) { datagram, arrival in
                guard let view = try? VoicePacketView(parsing: datagram) else { return }
                stream.insert(view, bytes: datagram, arrival: arrival)
            }
            output.withUnsafeMutableBufferPointer { stream.pullFrame(into: $0, at: now) }
            #expect(output.allSatisfy { $0.isFinite })
        }
        let statistics = stream.statistics
        let sent = network.statistics
        #expect(sent.dropped > frames.count / 20)
        #expect(statistics.packetsDuplicated == sent.duplicated)
        #expect(statistics.packetsReceived == frames.count - sent.dropped)
        #expect(statistics.packetsLate == 0)
        // A loss at the very end is never followed by a packet that would reveal it.
        let repairedOrLost = statistics.packetsLost + statistics.recoveredByFEC + statistics.recoveredByRedundancy
        #expect(repairedOrLost <= sent.dropped && repairedOrLost >= sent.dropped - 3)
        #expect(statistics.recoveredByRedundancy > statistics.packetsLost)
        print(
            "simulated \(frameDuration): dropped \(sent.dropped), repaired by redundancy "
                + "\(statistics.recoveredByRedundancy), by FEC \(statistics.recoveredByFEC), lost "
                + "\(statistics.packetsLost), target \(statistics.targetDelayMilliseconds) ms")
    }

    /// The per-stream speaking state follows the decoded speech and falls silent in a pause.
    @Test func speakingFollowsTheDecodedAudio() throws {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 4)]))
        let pause = Set(100..<200)
        let packets = try makePackets(frames, unsent: pause, quiet: [99]) {
            MediaTime($0) * FrameDuration.ms20.nanoseconds + MediaTime.milliseconds(10)
        }
        var harness = try ReceiveHarness()
        var speakingTicks = Set<Int>()
        var loudest = LevelMeter.floorDBFS
        harness.observe = { tick, stream in
            if stream.isSpeaking { speakingTicks.insert(tick) }
            loudest = max(loudest, stream.meter.rmsDBFS)
        }
        _ = harness.run(packets.map(\.packet), ticks: frames.count + 5)
        let beforePause = speakingTicks.filter { $0 < 100 }.count
        let inPause = speakingTicks.filter { (130..<195).contains($0) }.count
        #expect(beforePause > 30)
        #expect(inPause == 0)
        #expect(loudest > -35)
    }
}
