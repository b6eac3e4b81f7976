import Foundation
import Testing
import VoiceCore
import VoiceMedia
import VoiceWire

@testable import VoiceEngine

/// Speech (the male fixture, over and over) captured sample by sample.
private struct Speech {
    private let samples: [Float]
    private var captured = 0

    init(filePath: String = #filePath) throws {
        var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // this file, VoiceEngineTests, Tests
        samples = try WAVAudio(contentsOfFile: components.joined(separator: "/") + "/Fixtures/speech-male.wav").samples
    }

    mutating func next(_ count: Int) -> [Float] {
        defer { captured += count }
        return (captured..<(captured + count)).map { samples[$0 % samples.count] }
    }
}

@Suite struct CaptureTimelineTests {
    /// The engine thread's capture step, in virtual time: a microphone whose deliveries stall for
    /// three periods once a second and then catch up, sent through a real send pipeline to a real
    /// receive stream over a network without any delay. The frames are captured on time, so the
    /// listener's buffer must not grow. A sender that took one frame per tick left each stall's
    /// backlog standing behind the microphone until it was dropped, stamping every
    /// frame in between that much late: each stall stepped the packets' transit up, and the
    /// listener's target climbed with them.
    @Test func aMicrophoneThatCatchesUpAfterStallsKeepsTheListenersTargetAtTheNetworksJitter() throws {
        let frameDuration = FrameDuration.ms10
        let frame = frameDuration.engineFrames
        let period = frameDuration.nanoseconds
        // Delivers the way a device server that misses cycles does: now and then nothing for a few
        // periods, then all of it at once.
        let microphone = QueuedMicrophone()
        var speech = try Speech()
        let backlog = CaptureBacklog(frameSamples: frame, capacitySamples: 24_000)
        let pipeline = try VoiceSendPipeline(SendConfiguration(sender: 7, channel: 3, frameDuration: frameDuration))
        let stream = try VoiceReceiveStream(
            sender: 7, channel: 3, configuration: JitterBufferConfiguration(frameDuration: frameDuration))
        let played = UnsafeMutableBufferPointer<Float>.allocate(capacity: frame)
        let packet = UnsafeMutableRawBufferPointer.allocate(
            byteCount: VoicePacketWriter.maximumPacketBytes, alignment: 8)
        defer {
            played.deallocate()
            packet.deallocate()
        }
        played.initialize(repeating: 0)

        var owed = 0
        var packetsSent = 0
        var targets: [Double] = []
        for tick in 0..<3_000 {
            let now = MediaTime(tick) * period
            // Every period a frame is captured; once a second the device holds three of them back.
            owed += frame
            if tick % 100 < 90 || tick % 100 >= 93 {
                microphone.arrive(speech.next(owed))
                owed = 0
            }
            backlog.takeFrames(from: microphone) { frame in
                guard let count = try? pipeline.process(frame, at: now, into: packet), count > 0 else { return }
                packetsSent += 1
                let bytes = UnsafeRawBufferPointer(rebasing: packet[0..<count])
                if let view = try? VoicePacketView(parsing: bytes) { stream.insert(view, bytes: bytes, arrival: now) }
            }
            stream.pullFrame(into: played, at: now)
            if tick % 100 == 99 { targets.append(stream.statistics.targetDelayMilliseconds) }
        }

        #expect(packetsSent > 1_500, "most frames are speech and go out")
        // Nothing stood behind the engine long enough to be dropped (one frame a tick dropped 39).
        #expect(backlog.droppedSamples == 0)
        // The stalls hold back 3 % of packets, under the 95th percentile: the target is the margin
        // (one frame) and the histogram's bucket, as on a network without jitter (one frame a tick:
        // 31 ms, then 41 ms).
        #expect(targets.allSatisfy { $0 <= 21 }, "targets once a second: \(targets)")
        #expect(stream.statistics.p95BufferingDelayMilliseconds <= 21)
        // Only what a stall held back can be late: three frames in each of thirty stalls.
        #expect(stream.statistics.packetsLate <= 90)
    }
}
