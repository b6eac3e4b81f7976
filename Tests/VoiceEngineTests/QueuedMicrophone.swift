import VoiceCore

/// A real-time microphone whose ring holds whatever the test says has arrived, for the engine
/// thread's capture step: the test decides when audio is delivered, and how much at once.
final class QueuedMicrophone: AudioInput, @unchecked Sendable {
    let name = "queued"
    let format = AudioFormat(sampleRate: 48_000, channels: 1)
    let pacing = DevicePacing.realTime
    let isExhausted = false
    let statistics = AudioDeviceStatistics()
    /// Test thread only (the capture step under test runs on it too).
    private var waiting: [Float] = []

    func arrive(_ samples: some Sequence<Float>) { waiting.append(contentsOf: samples) }

    func start() {}
    func stop() {}

    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        let count = min(buffer.count, waiting.count)
        for index in 0..<count { buffer[index] = waiting[index] }
        waiting.removeFirst(count)
        return count
    }
}
