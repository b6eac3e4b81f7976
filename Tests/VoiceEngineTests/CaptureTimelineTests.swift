import Foundation
import Testing
import VoiceCore
import VoiceDevices
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
    /// How a microphone's device server behaves when it misses cycles.
    enum Stall {
        /// Nothing for a few periods, then all of it at once: the audio was captured on time.
        case catchesUp
        /// Nothing for a few periods, and those periods are never delivered: the time is lost.
        case losesTime
    }

    struct Outcome {
        var packetsSent = 0
        /// The listener's target delay once a second.
        var targets: [Double] = []
        var p95BufferingMilliseconds = 0.0
        var packetsLate = 0
        var backlogDropped = 0
        var framesLost = 0
    }

    /// The engine thread's capture step, in virtual time: a microphone whose deliveries stall for
    /// three periods once a second, sent through a real send pipeline to a real receive stream over
    /// a network without any delay.
    func run(stall: Stall) throws -> Outcome {
        let frameDuration = FrameDuration.ms10
        let frame = frameDuration.engineFrames
        let period = frameDuration.nanoseconds
        let microphone = QueuedMicrophone()
        var speech = try Speech()
        let backlog = CaptureBacklog(frameSamples: frame, capacitySamples: 24_000, framePeriod: period)
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

        var outcome = Outcome()
        var owed = 0
        for tick in 0..<3_000 {
            let now = MediaTime(tick) * period
            // Every period a frame is captured; once a second the device stalls for three periods,
            // then delivers them late or never.
            owed += frame
            let stalled = tick % 100 >= 90 && tick % 100 < 93
            if !stalled {
                microphone.arrive(speech.next(owed))
                owed = 0
            } else if stall == .losesTime {
                _ = speech.next(owed)
                owed = 0
            }
            backlog.takeFrames(from: microphone, at: now) { event in
                switch event {
                case .lost(let frames):
                    pipeline.skipLostFrames(frames)
                case .captured(let frame, _):
                    guard let count = try? pipeline.process(frame, at: now, into: packet), count > 0 else { return }
                    outcome.packetsSent += 1
                    let bytes = UnsafeRawBufferPointer(rebasing: packet[0..<count])
                    if let view = try? VoicePacketView(parsing: bytes) {
                        stream.insert(view, bytes: bytes, arrival: now)
                    }
                }
            }
            stream.pullFrame(into: played, at: now)
            if tick % 100 == 99 { outcome.targets.append(stream.statistics.targetDelayMilliseconds) }
        }
        outcome.p95BufferingMilliseconds = stream.statistics.p95BufferingDelayMilliseconds
        outcome.packetsLate = stream.statistics.packetsLate
        outcome.backlogDropped = backlog.droppedSamples
        outcome.framesLost = pipeline.statistics.framesLost
        return outcome
    }

    /// The frames are captured on time, so the listener's buffer must not grow. A sender that
    /// took one frame per tick left each stall's backlog standing behind the microphone until it
    /// was dropped, stamping every frame in between that much late: each stall stepped the
    /// packets' transit up, and the listener's target climbed with them.
    @Test func aMicrophoneThatCatchesUpAfterStallsKeepsTheListenersTargetAtTheNetworksJitter() throws {
        let outcome = try run(stall: .catchesUp)
        #expect(outcome.packetsSent > 1_500, "most frames are speech and go out")
        // Nothing stood behind the engine long enough to be dropped (one frame a tick dropped 39).
        #expect(outcome.backlogDropped == 0)
        #expect(outcome.framesLost == 0, "late audio is not lost audio")
        // The stalls hold back 3 % of packets, under the 95th percentile: the target is the margin
        // (one frame) and the histogram's bucket, as on a network without jitter (one frame a tick:
        // 31 ms, then 41 ms).
        #expect(outcome.targets.allSatisfy { $0 <= 21 }, "targets once a second: \(outcome.targets)")
        #expect(outcome.p95BufferingMilliseconds <= 21)
        // Only what a stall held back can be late: three frames in each of thirty stalls.
        #expect(outcome.packetsLate <= 90)
    }

    /// The lost periods are skipped on the sender's timeline, as a pause is: the listener plays
    /// silence for them and every later packet is as early as before. Stamped by frame count
    /// instead, every stall moved all later packets three periods later for good, which the
    /// listener can only take as the network slowing down: its target climbed with each one
    /// until its reference forgot the faster past (without the skip: a 41 ms target all along and
    /// 75 packets late).
    @Test func aMicrophoneThatLosesTimeInStallsKeepsTheListenersTargetAtTheNetworksJitter() throws {
        let outcome = try run(stall: .losesTime)
        #expect(outcome.packetsSent > 1_500, "most frames are speech and go out")
        #expect(outcome.framesLost == 90, "three periods in each of thirty stalls")
        #expect(outcome.backlogDropped == 0)
        #expect(outcome.targets.allSatisfy { $0 <= 21 }, "targets once a second: \(outcome.targets)")
        #expect(outcome.p95BufferingMilliseconds <= 21)
        #expect(outcome.packetsLate == 0, "no packet is stamped before its audio was captured")
    }

    /// A device whose clock runs 200 ppm slow against the system's, delivering two frames at a time
    /// with a phase that wanders by most of a frame, never lost any time: nothing is skipped.
    @Test func driftAndDeliveryPhaseAreNotTakenForLostTime() {
        let frame = FrameDuration.ms10.engineFrames
        let period = FrameDuration.ms10.nanoseconds
        var timeline = CaptureTimeline(frameSamples: frame, framePeriod: period)
        var lost = 0
        for delivery in 0..<30_000 {
            // Two frames every 20.004 ms of system time, each delivery 0…9 ms late.
            let due = MediaTime(Double(delivery) * 2 * Double(period) * 1.000_2)
            let late = MediaTime(delivery * 7_919 % 10) * 1_000_000
            lost += timeline.lostFrames(afterDelivering: 2 * frame, at: due + late)
            #expect(timeline.lostFrames(afterDelivering: 0, at: due + late + period) == 0)
        }
        #expect(lost == 0)
    }

    /// Lost time of two frames or more is skipped at once, in whole frames; a single lost frame is
    /// skipped once it has stood for the confirmation time (two frames here), since for one
    /// delivery it looks like a device still catching up.
    @Test func lostTimeIsSkippedInWholeFrames() {
        let frame = FrameDuration.ms10.engineFrames
        let period = FrameDuration.ms10.nanoseconds
        var timeline = CaptureTimeline(frameSamples: frame, framePeriod: period)
        var now: MediaTime = 0
        func deliver(afterLosing frames: Int) -> Int {
            now += MediaTime(frames + 1) * period
            return timeline.lostFrames(afterDelivering: frame, at: now)
        }
        for _ in 0..<100 { #expect(deliver(afterLosing: 0) == 0) }
        #expect(deliver(afterLosing: 1) == 0, "a frame over the usual slip, for one delivery")
        #expect(deliver(afterLosing: 0) == 0, "still over it, 10 ms later")
        #expect(deliver(afterLosing: 0) == 1, "still over it 20 ms later: lost")
        for _ in 0..<10 { #expect(deliver(afterLosing: 0) == 0) }
        #expect(deliver(afterLosing: 5) == 5)
        #expect(deliver(afterLosing: 0) == 0)
        #expect(deliver(afterLosing: 3) == 3)
        #expect(deliver(afterLosing: 0) == 0)
    }

    /// A slip of a frame or more that is gone within the confirmation time is lateness, not loss:
    /// the device delivered two frames late and then caught up, or the engine thread woke late
    /// once. Nothing is skipped, so no packet is stamped before its audio was captured.
    @Test func aSlipThatIsGoneByTheNextDeliveryIsNotSkipped() {
        let frame = FrameDuration.ms10.engineFrames
        let period = FrameDuration.ms10.nanoseconds
        var timeline = CaptureTimeline(frameSamples: frame, framePeriod: period)
        var lost = 0
        var due: MediaTime = 0
        for second in 0..<30 {
            for tick in 0..<100 {
                due += period
                switch tick {
                case 50:
                    // The device delivers this frame 15 ms late and the next 10 ms late, then
                    // is on time again.
                    continue
                case 51:
                    lost += timeline.lostFrames(afterDelivering: frame, at: due + period / 2)
                    lost += timeline.lostFrames(afterDelivering: frame, at: due + period)
                case 80:
                    // The engine wakes 15 ms late and takes the frame delivered on time.
                    lost += timeline.lostFrames(afterDelivering: frame, at: due + 3 * period / 2)
                default:
                    lost += timeline.lostFrames(afterDelivering: frame, at: due)
                }
            }
            #expect(lost == 0, "second \(second)")
        }
    }

    /// A sound server that loses 3 ms every 100 ms (a JACK server on a busy machine loses time in
    /// such pieces): the packets fall behind their timestamps by at most the frame it takes to
    /// notice, not the two frames the immediate rule alone left standing, and the time skipped is
    /// never more than the time lost.
    @Test func timeLostInSmallPiecesIsSkippedOnceItAddsUpToAFrame() {
        let frame = FrameDuration.ms10.engineFrames
        let period = FrameDuration.ms10.nanoseconds
        var timeline = CaptureTimeline(frameSamples: frame, framePeriod: period)
        let piece = MediaTime.milliseconds(3)
        var now: MediaTime = 0
        var timeLost: MediaTime = 0
        var framesSkipped = 0
        var largestLag: MediaTime = 0
        var deliveriesAFrameBehind = 0
        let deliveries = 6_000
        for delivery in 1...deliveries {
            now += period
            if delivery % 10 == 0 {
                now += piece
                timeLost += piece
            }
            framesSkipped += timeline.lostFrames(afterDelivering: frame, at: now)
            // How far this delivery's audio is behind the time its timestamp now stands for.
            let lag = timeLost - MediaTime(framesSkipped) * period
            largestLag = max(largestLag, lag)
            if lag >= period { deliveriesAFrameBehind += 1 }
        }
        #expect(largestLag <= MediaTime.milliseconds(12), "the largest lag: \(largestLag.milliseconds) ms")
        // A frame is lost every 3⅓ pieces, and two deliveries of each wait for the confirmation.
        // With the immediate rule alone: a 19 ms lag, and half of the deliveries a frame behind.
        #expect(deliveriesAFrameBehind <= deliveries / 14, "\(deliveriesAFrameBehind) deliveries a frame behind")
        #expect(MediaTime(framesSkipped) * period <= timeLost)
        #expect(timeLost - MediaTime(framesSkipped) * period <= period, "every whole frame lost was skipped")
    }
}
