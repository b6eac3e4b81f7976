import Synchronization
import VoiceCore

/// Control calls and signalling on their way to the engine thread, while it owns the engine's
/// state: the engine thread runs each at its next turn, and never waits for another thread.
///
/// Callers append under a mutex held for the append alone. The engine thread only ever tries it:
/// when a caller is mid-append, its command waits for the turn that the caller's wake-up brings.
/// While the engine thread does not run, the queue is closed and callers take the engine's lock
/// instead (`VoiceEngine.withCore`). Thread contract (the reason for `@unchecked Sendable`): the
/// working lists are the engine thread's alone, or the closing thread's once it has stopped.
final class EngineCommandQueue: @unchecked Sendable {
    private struct Pending: Sendable {
        var commands: [EngineCommand] = []
        /// How to wake the engine thread; nil while it does not own the engine's state.
        var wake: (@Sendable () -> Void)?
    }

    private let pending: Mutex<Pending>
    private var working: [EngineCommand] = []
    private var completions: [Unmanaged<WakeCounter>] = []

    /// Commands a turn takes without allocating: one per thread that may call at once.
    static let capacity = 64

    init() {
        var pending = Pending()
        pending.commands.reserveCapacity(Self.capacity)
        self.pending = Mutex(pending)
        working.reserveCapacity(Self.capacity)
        completions.reserveCapacity(Self.capacity)
    }

    /// Whether the engine thread owns the engine's state.
    var isOpen: Bool { pending.withLock { $0.wake != nil } }

    /// Hands `command` to the engine thread and wakes it; false when the engine thread does not
    /// own the engine's state (the caller then takes the engine's lock).
    func submit(_ command: EngineCommand) -> Bool {
        let wake = pending.withLock { pending -> (@Sendable () -> Void)? in
            guard let wake = pending.wake else { return nil }
            pending.commands.append(command)
            return wake
        }
        guard let wake else { return false }
        wake()
        return true
    }

    /// The engine thread (about to start) owns the engine's state from now on: commands reach it,
    /// and `wake` rouses it for them.
    func open(waking wake: @escaping @Sendable () -> Void) {
        pending.withLock { $0.wake = wake }
    }

    /// The engine thread's turn: runs what callers handed in since the last, calls `ran` (while
    /// their callers still wait), then lets them go. Does nothing while a caller holds the queue.
    func runPending(on core: EngineCore, then ran: () -> Void) {
        let taken = pending.withLockIfAvailable { pending -> Bool in
            guard !pending.commands.isEmpty else { return false }
            swap(&pending.commands, &working)
            return true
        }
        if taken == true { runWorking(on: core, then: ran) }
    }

    /// The engine thread gives the engine's state back: runs every command handed in so far, and
    /// refuses any later one.
    func close(running core: EngineCore, then ran: () -> Void) {
        pending.withLock { pending in
            pending.wake = nil
            swap(&pending.commands, &working)
        }
        runWorking(on: core, then: ran)
    }

    private func runWorking(on core: EngineCore, then ran: () -> Void) {
        for command in working {
            command.body(core)
            completions.append(command.completionHandle)
        }
        ran()
        // The callers' references are now the only ones: freeing a command is never the engine thread's.
        working.removeAll(keepingCapacity: true)
        for completion in completions { EngineCommand.finish(completion) }
        completions.removeAll(keepingCapacity: true)
    }
}
