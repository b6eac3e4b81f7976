import Synchronization
import VoiceCore

/// The microphone side of a `GameAudioDevice`: what the game's audio callback captured, at 48 kHz
/// mono, waiting in a ring for the engine. Between `start` and `stop` the game's blocks are
/// queued; otherwise they are dropped, so that nothing stale is sent when the engine starts.
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

    init(ringFrames: Int, cadence: PeriodCadence?) {
        ring = AudioRing(channels: 1, minimumFrames: ringFrames)
        periodCadence = cadence
    }

    var isRunning: Bool { running.load(ordering: .acquiring) }

    public func start() throws(AudioDeviceError) {
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
    }
}
