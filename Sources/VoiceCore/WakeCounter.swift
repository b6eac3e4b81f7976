import CVoiceFutex

#if canImport(Glibc)
    import Glibc
#endif

/// A counter one thread bumps to wake another that sleeps on it, through a Linux futex: bumping
/// takes no lock and never blocks, so a device thread can wake the engine, and the engine its
/// courier, without waiting on them.
public final class WakeCounter: @unchecked Sendable {
    /// Futex memory: allocated once and never moved.
    private let counter: UnsafeMutablePointer<UInt32>

    public init() {
        counter = .allocate(capacity: 1)
        counter.initialize(to: 0)
    }

    deinit { counter.deallocate() }

    /// The count now; pass it to `wait(after:until:)` to sleep until the next bump.
    public var value: UInt32 { cvoice_futex_counter_load(counter) }

    /// Adds one and wakes every sleeper.
    public func bump() { cvoice_futex_counter_bump(counter) }

    /// Sleeps while the count is still `seen`, at most until `deadline`.
    public func wait(after seen: UInt32, until deadline: MediaTime) {
        while cvoice_futex_counter_wait(counter, seen, deadline) == EINTR {}
    }
}
