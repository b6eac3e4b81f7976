import Synchronization
import VoiceCore

/// Holds the demo's speech and recordings until both players hear each other, then lets them run
/// from the same instant: what each side says starts with the call, not while it is still being
/// set up, and what the other side heard is recorded on the same timeline, so the two files line
/// up for scoring.
final class DemoGate: Sendable {
    private let open = Atomic<Bool>(false)

    func release() { open.store(true, ordering: .releasing) }

    var isOpen: Bool { open.load(ordering: .acquiring) }
}

/// An on-demand source that gives silence until the gate opens, then the wrapped source.
final class GatedInput: AudioInput {
    private let source: any AudioInput
    private let gate: DemoGate

    init(_ source: any AudioInput, gate: DemoGate) {
        self.source = source
        self.gate = gate
    }

    var name: String { source.name }
    var format: AudioFormat { source.format }
    var pacing: DevicePacing { source.pacing }
    var isExhausted: Bool { gate.isOpen && source.isExhausted }
    var statistics: AudioDeviceStatistics { source.statistics }
    var periodCadence: PeriodCadence? { source.periodCadence }
    func start() throws(AudioDeviceError) { try source.start() }
    func stop() { source.stop() }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        guard gate.isOpen else {
            buffer.update(repeating: 0)
            return buffer.count / format.channels
        }
        return source.read(into: buffer)
    }
}

/// An on-demand sink that discards what it is given until the gate opens.
final class GatedOutput: AudioOutput {
    private let sink: any AudioOutput
    private let gate: DemoGate

    init(_ sink: any AudioOutput, gate: DemoGate) {
        self.sink = sink
        self.gate = gate
    }

    var name: String { sink.name }
    var format: AudioFormat { sink.format }
    var pacing: DevicePacing { sink.pacing }
    var availableToWrite: Int { sink.availableToWrite }
    var statistics: AudioDeviceStatistics { sink.statistics }
    var periodCadence: PeriodCadence? { sink.periodCadence }
    func start() throws(AudioDeviceError) { try sink.start() }
    func stop() { sink.stop() }

    func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard gate.isOpen else { return samples.count / format.channels }
        return sink.write(samples)
    }
}
