import VoiceCore

/// `listen --echo`'s sound device: what the engine plays is what it captures next, so a caller
/// hears themselves through the whole path (their voice there and back, both jitter buffers).
///
/// Both ends are on demand, called by the engine thread alone, which reads a frame before it
/// writes the frame it mixes: the echo comes back one frame later. Nothing is allocated after
/// creation; what the engine has not read back within a second is dropped.
final class EchoLoopback: AudioInput, AudioOutput, @unchecked Sendable {
    private let ring: UnsafeMutableBufferPointer<Float>
    private var readIndex = 0
    private var count = 0

    init() {
        ring = .allocate(capacity: engineSampleRate)
        ring.initialize(repeating: 0)
    }

    deinit { ring.deallocate() }

    var name: String { "echo" }
    var format: AudioFormat { .engineMono }
    var pacing: DevicePacing { .onDemand }
    var isExhausted: Bool { false }
    var statistics: AudioDeviceStatistics { AudioDeviceStatistics() }
    var availableToWrite: Int { ring.count - count }
    var periodCadence: PeriodCadence? { nil }

    func start() throws(AudioDeviceError) {}
    func stop() {}

    /// Gives back what was played, then silence: an on-demand input fills every frame asked for.
    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        for index in buffer.indices {
            if count > 0 {
                buffer[index] = ring[readIndex]
                readIndex = (readIndex + 1) % ring.count
                count -= 1
            } else {
                buffer[index] = 0
            }
        }
        return buffer.count
    }

    func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        for sample in samples {
            if count == ring.count {
                readIndex = (readIndex + 1) % ring.count
                count -= 1
            }
            ring[(readIndex + count) % ring.count] = sample
            count += 1
        }
        return samples.count
    }
}
