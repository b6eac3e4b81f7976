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
final class GatedInput: WrappingAudioInput {
    let wrapped: any AudioInput
    private let gate: DemoGate

    init(_ source: any AudioInput, gate: DemoGate) {
        wrapped = source
        self.gate = gate
    }

    var isExhausted: Bool { gate.isOpen && wrapped.isExhausted }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        guard gate.isOpen else {
            buffer.update(repeating: 0)
            return buffer.count / format.channels
        }
        return wrapped.read(into: buffer)
    }
}

/// An on-demand sink that discards what it is given until the gate opens.
final class GatedOutput: WrappingAudioOutput {
    let wrapped: any AudioOutput
    private let gate: DemoGate

    init(_ sink: any AudioOutput, gate: DemoGate) {
        wrapped = sink
        self.gate = gate
    }

    func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard gate.isOpen else { return samples.count / format.channels }
        return wrapped.write(samples)
    }
}
