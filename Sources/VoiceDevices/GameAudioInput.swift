import Synchronization
import VoiceCore

/// The microphone side of a `GameAudioDevice`: what the game's audio callback captured, at 48 kHz
/// mono, waiting in a ring for the engine. Between `start` and `stop` the game's blocks are
/// queued; otherwise they are dropped, so that nothing stale is sent when the engine starts.
///
/// Its cadence is marked once per engine frame delivered, whatever the game's block size: the
/// engine sends each frame as soon as it is complete, and is not woken for blocks that complete none.
public final class GameAudioInput: AudioInput {
    public var name: String { "game audio" }
    public let format = AudioFormat.engineMono
    public var pacing: DevicePacing { .realTime }
    /// The game's microphone never runs out.
    public var isExhausted: Bool { false }
    public let periodCadence: PeriodCadence?

    private let ring: AudioRing
    private let running = Atomic<Bool>(false)
    private let counters = DeviceCounters()
    private let frameSamples: Int
    /// Samples delivered since the cadence was last marked (by the game's thread; reset on start).
    private let samplesSinceMark = Atomic<Int>(0)

    init(ringFrames: Int, frameSamples: Int) {
        ring = AudioRing(channels: 1, minimumFrames: ringFrames)
        self.frameSamples = frameSamples
        periodCadence = PeriodCadence(periodFrames: frameSamples, sampleRate: engineSampleRate)
    }

    var isRunning: Bool { running.load(ordering: .acquiring) }

    public func start() throws(AudioDeviceError) {
        samplesSinceMark.store(0, ordering: .relaxed)
        periodCadence?.restart()
        running.store(true, ordering: .releasing)
    }

    public func stop() {
        running.store(false, ordering: .releasing)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        ring.read(into: buffer)
    }

    public var statistics: AudioDeviceStatistics { counters.snapshot }

    /// The game's thread queues 48 kHz mono samples; what does not fit is dropped and counted.
    func deliver(_ samples: UnsafeBufferPointer<Float>) {
        guard !samples.isEmpty else { return }
        counters.deviceFrames.add(samples.count, ordering: .relaxed)
        let written = ring.write(samples)
        if written < samples.count { counters.ringStarvedFrames.add(samples.count - written, ordering: .relaxed) }
        let pending = samplesSinceMark.load(ordering: .relaxed) + written
        samplesSinceMark.store(pending % frameSamples, ordering: .relaxed)
        if pending >= frameSamples { periodCadence?.markPeriod(at: MediaTime.monotonicNow()) }
    }
}
