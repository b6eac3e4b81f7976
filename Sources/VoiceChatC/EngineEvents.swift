import CVoiceChatABI
import Synchronization

/// A game's event callback and its context, called only on the engine's event thread.
struct EventCallback: @unchecked Sendable {
    let function: vc_event_callback
    let context: UnsafeMutableRawPointer?
}

/// The engine's events on their way to the game: queued by whichever thread they happen on (the
/// engine's courier, a relay link, the caller), then taken by `vc_engine_poll_event` or handed to
/// the callback on the event thread, in order. The lock is held only to queue or take.
///
/// Thread contract (the reason for `@unchecked Sendable`): `polled` is touched only under `pollLock`.
final class EngineEvents: @unchecked Sendable {
    /// Events kept for a game that does not poll; beyond this the newest are dropped and counted.
    static let capacity = 65_536

    let callback: EventCallback?
    private let pending = Mutex<(events: [EngineEventRecord], head: Int)>(([], 0))
    private let pollLock = Mutex(())
    private var polled = PolledEventStorage()
    private let dropped = Atomic<Int>(0)
    /// Wakes the event thread when an event waits for the callback.
    let doorbell: @Sendable () -> Void

    init(callback: EventCallback?, doorbell: @escaping @Sendable () -> Void) {
        self.callback = callback
        self.doorbell = doorbell
    }

    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    func post(_ event: EngineEventRecord) {
        let queued = pending.withLock { pending in
            guard pending.events.count - pending.head < Self.capacity else { return false }
            pending.events.append(event)
            return true
        }
        if !queued { dropped.add(1, ordering: .relaxed) }
        if callback != nil { doorbell() }
    }

    /// Every event waiting, oldest first.
    func takeAll() -> [EngineEventRecord] {
        pending.withLock { pending in
            defer { pending = ([], 0) }
            return Array(pending.events[pending.head...])
        }
    }

    /// The oldest event into `event` (its strings kept until the next poll); false when none waits.
    func poll(into event: UnsafeMutablePointer<vc_event>) -> Bool {
        let next = pending.withLock { pending -> EngineEventRecord? in
            guard pending.head < pending.events.count else { return nil }
            defer {
                pending.head += 1
                if pending.head == pending.events.count { pending = ([], 0) }
            }
            return pending.events[pending.head]
        }
        guard let next else { return false }
        pollLock.withLock { _ in next.fill(event, keeping: &polled) }
        return true
    }
}
