import Synchronization
import Testing
import VoiceCore

@testable import VoiceEngine

/// A real-time speaker with a ring of `capacity` samples that the test drains.
private final class DrainingOutput: AudioOutput, @unchecked Sendable {
    let name = "draining"
    let format = AudioFormat(sampleRate: 48_000, channels: 1)
    let pacing = DevicePacing.realTime
    private(set) var statistics = AudioDeviceStatistics()
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

    /// Plays `samples` as a speaker does: from the queue, and silence for what it lacks.
    func playRunningDry(_ samples: Int) {
        statistics.ringStarvedFrames += max(0, samples - queued)
        queued = max(0, queued - samples)
    }
}

@Suite struct DeviceQueueTests {
    @Test func aQueueIsTrimmedOnlyByWhatStoodAboveTheAllowanceForAWholeWindow() {
        var queue = StandingQueue(allowance: 10, window: 4)
        // Jitter: the queue dips to the allowance once per window, so nothing is dropped.
        let jitter = [30, 10, 25, 40].map { queue.observe(queued: $0) }
        #expect(jitter == [nil, nil, nil, 0])
        // A standing queue: at least 35 all window long, so 25 above the allowance go.
        let drops = [50, 35, 60, 45].map { queue.observe(queued: $0) }
        #expect(drops == [nil, nil, nil, 25])
    }

    @Test func aMicrophoneThatDeliversLessThanAFrameGivesNothingYet() {
        let input = QueuedMicrophone()
        let backlog = CaptureBacklog(
            frameSamples: 480, capacitySamples: 24_000, framePeriod: FrameDuration.ms10.nanoseconds)
        var taken: [[Float]] = []
        input.arrive((0..<300).map(Float.init))
        func take(at now: MediaTime) -> Int {
            backlog.takeFrames(from: input, at: now) { event in
                if case .captured(let frame, _) = event { taken.append(Array(frame)) }
            }
        }
        #expect(take(at: 0) == 0)
        input.arrive((300..<480).map(Float.init))
        #expect(take(at: FrameDuration.ms10.nanoseconds) == 1)
        #expect(taken.first?.first == 0 && taken.first?.last == 479)
    }

    @Test func anOverflowingBacklogDropsTheOldestWholeFramesAndReportsThemLost() {
        let input = QueuedMicrophone()
        let backlog = CaptureBacklog(
            frameSamples: 480, capacitySamples: 2_400, framePeriod: FrameDuration.ms10.nanoseconds)
        // Twelve and a half frames at once, where the backlog holds five.
        input.arrive((0..<6_000).map(Float.init))
        var lost = 0
        var firsts: [Float] = []
        let taken = backlog.takeFrames(from: input, at: 0) { event in
            switch event {
            case .lost(let frames): lost += frames
            case .captured(let frame, _): firsts.append(frame[0])
            }
        }
        // What was handed on plus what was dropped is every whole frame, in order and on frame
        // boundaries; the half frame waits.
        #expect(lost + taken == 12)
        #expect(lost > 0 && backlog.droppedSamples == lost * 480)
        #expect(firsts == (lost..<12).map { Float($0 * 480) })
    }

    /// Speech with a pause every 20 frames: what stood after a stall is skipped out of the pauses,
    /// never out of the speech.
    @Test func aStandingSpeakerQueueIsTrimmedInQuietFrames() {
        let frame = 480
        let output = DrainingOutput(capacity: 9_600)
        var pacer = PlaybackPacer(output: output, frameSamples: frame)
        let speech = [Float](repeating: 0.1, count: frame)
        let pause = [Float](repeating: 0.000_1, count: frame)
        var tick = 0
        func step(playing: Int) {
            let mix = tick % 20 == 19 ? pause : speech
            mix.withUnsafeBufferPointer { pacer.write($0) }
            output.play(playing)
            tick += 1
        }
        for _ in 0..<100 { step(playing: frame) }
        for _ in 0..<4 { step(playing: 0) }
        #expect(output.queued == 4 * frame)
        for _ in 0..<(4 * PlaybackPacer.standingWindowFrames) { step(playing: frame) }
        #expect(pacer.skippedFrames == 3)
        #expect(pacer.skippedLoudFrames == 0)
        #expect(output.queued <= frame)
    }

    /// A period the speaker played as silence because the engine came late is left out of the
    /// next quiet frame: what follows plays as early again as before (a dry run moved everything
    /// after it later for the rest of the call). In sound, after `quietWaitFrames`.
    @Test func whatADryRunCostIsTakenBackFromAQuietFrame() {
        let frame = 960
        let output = DrainingOutput(capacity: 9_600)
        var pacer = PlaybackPacer(output: output, frameSamples: frame)
        let speech = [Float](repeating: 0.1, count: frame)
        let pause = [Float](repeating: 0.000_1, count: frame)
        // The speaker takes what each tick wrote (the engine mixes just before it needs it).
        var written = 0
        func tick(_ mix: [Float]) {
            let before = output.queued
            mix.withUnsafeBufferPointer { pacer.write($0) }
            written = output.queued - before
            output.play(output.queued)
        }
        for _ in 0..<10 { tick(speech) }
        #expect(written == frame)
        // The engine misses its time: the speaker plays 480 samples of silence.
        output.playRunningDry(480)
        #expect(output.statistics.ringStarvedFrames == 480)
        // Speech goes on whole; the first pause gives up what the dry run cost.
        for _ in 0..<5 { tick(speech) }
        #expect(written == frame)
        #expect(pacer.reclaimedSamples == 0)
        tick(pause)
        #expect(written == frame - 480)
        #expect(pacer.reclaimedSamples == 480)
        tick(pause)
        #expect(written == frame)
        // Another dry run with no pause to come: taken out of sound, once the wait is over.
        output.playRunningDry(480)
        for _ in 0..<PlaybackPacer.quietWaitFrames { tick(speech) }
        #expect(pacer.reclaimedSamples == 480)
        tick(speech)
        #expect(pacer.reclaimedSamples == 960)
        #expect(written == frame - 480)
        // A dry run longer than a frame is taken back a frame at a time.
        output.playRunningDry(1_440)
        tick(pause)
        #expect(written == 0)
        tick(pause)
        #expect(written == frame - 480)
        #expect(pacer.reclaimedSamples == 960 + 1_440)
        #expect(pacer.skippedFrames == 0)
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
        // A window to see it stand, then each skip waits for a quiet frame that never comes.
        let trimming = 2 * PlaybackPacer.standingWindowFrames + 7 * (PlaybackPacer.quietWaitFrames + 1)
        for _ in 0..<trimming { tick(playing: frame) }
        // The standing 8 frames went down to the 1-frame allowance, and no further; with no quiet
        // frame in the mix, out of the sound.
        #expect(pacer.skippedFrames == 7)
        #expect(pacer.skippedLoudFrames == 7)
        #expect(output.queued <= frame)
    }
}
