import Synchronization
import VoiceCore

/// The speaker side of a `GameAudioDevice`: what the engine mixed, at 48 kHz, waiting in a ring
/// for the game's audio callback. A block the ring cannot fill is padded with silence, counted
/// as starvation once the engine has written anything (before that, silence is all there is).
public final class GameAudioOutput: AudioOutput {
    public var name: String { "game audio" }
    public let format: AudioFormat
    public var pacing: DevicePacing { .realTime }
    public let periodCadence: PeriodCadence?

    private let ring: AudioRing
    private let running = Atomic<Bool>(false)
    private let hasWritten = Atomic<Bool>(false)
    private let counters = DeviceCounters()

    init(channels: Int, ringFrames: Int, cadence: PeriodCadence?) {
        format = AudioFormat(sampleRate: engineSampleRate, channels: channels)
        ring = AudioRing(channels: channels, minimumFrames: ringFrames)
        periodCadence = cadence
    }

    var isRunning: Bool { running.load(ordering: .acquiring) }

    public func start() throws(AudioDeviceError) {
        periodCadence?.restart()
        running.store(true, ordering: .releasing)
    }

    /// Stops taking the engine's mix; the game's blocks get silence from then on.
    public func stop() {
        running.store(false, ordering: .releasing)
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        if !samples.isEmpty { hasWritten.store(true, ordering: .relaxed) }
        return ring.write(samples)
    }

    public var availableToWrite: Int { ring.availableToWrite }

    public var statistics: AudioDeviceStatistics { counters.snapshot }

    /// The game's thread takes a whole buffer of frames, silence where the ring ran short.
    func take(into buffer: UnsafeMutableBufferPointer<Float>) {
        let wanted = buffer.count / format.channels
        let read = ring.read(into: buffer)
        counters.deviceFrames.add(wanted, ordering: .relaxed)
        guard read < wanted else { return }
        UnsafeMutableBufferPointer(rebasing: buffer[(read * format.channels)...]).update(repeating: 0)
        if hasWritten.load(ordering: .relaxed) {
            counters.ringStarvedFrames.add(wanted - read, ordering: .relaxed)
        }
    }
}
