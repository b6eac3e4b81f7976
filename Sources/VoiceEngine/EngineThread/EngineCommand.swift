import VoiceCore

/// A control call or a signalling message for the engine thread to run on the engine's state at
/// its next turn, while the calling thread waits for it.
///
/// The caller keeps it alive until it has run; the engine thread lets go of it before it says so
/// (`finish`), so that neither freeing it nor the caller's closure ever falls to the engine thread.
final class EngineCommand: Sendable {
    nonisolated(unsafe) let body: (EngineCore) -> Void
    /// Bumped once the body has run.
    private let completion = WakeCounter()

    init(_ body: @escaping (EngineCore) -> Void) {
        self.body = body
    }

    /// What `finish` needs, taken while the engine thread still holds the command.
    var completionHandle: Unmanaged<WakeCounter> { .passUnretained(completion) }

    /// Says that the body has run and wakes the caller, through the handle alone: the engine thread
    /// holds no reference by then, and the caller may free the command as soon as it sees the bump.
    static func finish(_ handle: Unmanaged<WakeCounter>) {
        handle._withUnsafeGuaranteedRef { $0.bump() }
    }

    /// Whether the body has run, and the engine thread let go of the command.
    var hasRun: Bool { completion.value != 0 }

    /// Waits until the body has run.
    func waitUntilRun() {
        while !hasRun {
            completion.wait(after: 0, until: MediaTime.monotonicNow() + 1_000_000_000)
        }
    }
}
