import Synchronization
import Testing
import VoiceCore

@testable import VoiceEngine

/// A real-time microphone whose ring holds whatever the test says has arrived: sample values count
/// up, so what the engine took shows which audio was dropped.
private final class ArrivingInput: AudioInput, @unchecked Sendable {
    let name = "arriving"
    let format = AudioFormat(sampleRate: 48_000, channels: 1)
    let pacing = DevicePacing.realTime
    let isExhausted = false
    let statistics = AudioDeviceStatistics()
    /// Test thread only (the backlog under test runs on it too).
    private var waiting: [Float] = []
    private var next: Float = 0

    func arrive(_ samples: Int) {
        for _ in 0..<samples {
            waiting.append(next)
            next += 1
        }
    }

    func start() {}
    func stop() {}

    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        let count = min(buffer.count, waiting.count)
        for index in 0..<count { buffer[index] = waiting[index] }
        waiting.removeFirst(count)
        return count
    }
}

/// A real-time speaker with a ring of `capacity` samples that the test drains.
private final class DrainingOutput: AudioOutput, @unchecked Sendable {
    let name = "draining"
    let format = AudioFormat(sampleRate: 48_000, channels: 1)
    let pacing = DevicePacing.realTime
    let statistics = AudioDeviceStatistics()
    let capacity: Int
    private(set) var queued = 0

    init(capacity: Int) { self.capacity = capacity }

    func start() {}
    func stop() {}
    var availableToWrite: Int { capacity - queued }

    func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        let taken = min(samples.count, availableToWrite)
        queued += taken
        return taken
    }

    func play(_ samples: Int) { queued = max(0, queued - samples) }
}

@Suite struct DeviceQueueTests {
    @Test func aQueueIsTrimmedOnlyByWhatStoodAboveTheAllowanceForAWholeWindow() {
        var queue = StandingQueue(allowance: 10, window: 4)
        // Jitter: the queue dips to the allowance once per window, so nothing is dropped.
        for queued in [30, 10, 25, 40] { #expect(queue.observe(queued: queued) == 0) }
        // A standing queue: at least 35 all window long, so 25 above the allowance go.
        let drops = [50, 35, 60, 45].map { queue.observe(queued: $0) }
        #expect(drops == [0, 0, 0, 25])
    }

    @Test func aMicrophoneBacklogFromAStallIsDroppedOldestFirstWithinAWindow() {
        let frame = 480
        let input = ArrivingInput()
        let backlog = CaptureBacklog(frameSamples: frame, capacitySamples: 24_000, windowFrames: 10)
        let taken = UnsafeMutableBufferPointer<Float>.allocate(capacity: frame)
        defer { taken.deallocate() }
        // Steady state: one frame arrives per tick and is taken at once.
        for _ in 0..<20 {
            input.arrive(frame)
            #expect(backlog.nextFrame(from: input, into: taken))
        }
        #expect(taken[0] == Float(19 * frame))
        #expect(backlog.droppedSamples == 0)
        // The engine thread stalls for 100 ms: ten frames wait, then the device goes on at its rate.
        input.arrive(10 * frame)
        var firstSamples: [Float] = []
        for _ in 0..<30 {
            input.arrive(frame)
            #expect(backlog.nextFrame(from: input, into: taken))
            firstSamples.append(taken[0])
        }
        // Within one window the backlog was cut back to the one-frame allowance…
        #expect(backlog.droppedSamples == 9 * frame)
        // …so the frame taken last is the newest but one that arrived.
        let newest = Float((20 + 10 + 30) * frame - frame)
        #expect(firstSamples.last == newest - Float(frame))
        // Taken frames only ever move forward in time.
        #expect(zip(firstSamples, firstSamples.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func aMicrophoneThatDeliversLessThanAFrameGivesNothingYet() {
        let input = ArrivingInput()
        let backlog = CaptureBacklog(frameSamples: 480, capacitySamples: 24_000, windowFrames: 10)
        let taken = UnsafeMutableBufferPointer<Float>.allocate(capacity: 480)
        defer { taken.deallocate() }
        input.arrive(300)
        #expect(!backlog.nextFrame(from: input, into: taken))
        input.arrive(180)
        #expect(backlog.nextFrame(from: input, into: taken))
        #expect(taken[0] == 0 && taken[479] == 479)
    }

    @Test func aSpeakerQueueLeftByAStallIsSkippedDownToAFrame() {
        let frame = 480
        let output = DrainingOutput(capacity: 9_600)
        var pacer = PlaybackPacer(output: output, frameSamples: frame)
        let mix = [Float](repeating: 0.1, count: frame)
        func tick(playing: Int) {
            mix.withUnsafeBufferPointer { pacer.write($0) }
            output.play(playing)
        }
        for _ in 0..<100 { tick(playing: frame) }
        #expect(output.queued == 0)
        #expect(pacer.skippedFrames == 0)
        // The device misses 80 ms of cycles while the engine goes on writing.
        for _ in 0..<8 { tick(playing: 0) }
        #expect(output.queued == 8 * frame)
        for _ in 0..<(2 * EngineThread.standingWindowFrames) { tick(playing: frame) }
        // The standing 8 frames went down to the 1-frame allowance, and no further.
        #expect(pacer.skippedFrames == 7)
        #expect(output.queued <= frame)
    }
}
