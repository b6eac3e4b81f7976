import MallocInterposerSwift
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counts the allocations made on up to four chosen threads, and on no other.
///
/// The interposer calls its hook on the allocating thread, from inside `malloc`, so the hook
/// compares `pthread_self()` with the ids stored here and bumps an atomic: it allocates
/// nothing and takes no lock. The ids are set before the hook is installed, and the state is
/// touched first so that its lazy initialisation does not happen inside the allocator.
/// Counting needs the interposer preloaded (`bench/run` does that); `isActive` tells.
enum AllocationCounter {
    /// Starts counting allocations made on `threads` (at most four).
    static func start(threads: [pthread_t]) {
        precondition(threads.count <= 4, "at most four threads are tracked")
        allocationTracking.set(threads)
        allocationTracking.count.store(0, ordering: .relaxed)
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.setAllocationHook { _ in
            let tracking = allocationTracking
            if tracking.isTracked(UInt(pthread_self())) {
                tracking.count.add(1, ordering: .relaxed)
            }
        }
        MallocInterposerSwift.hook()
    }

    /// Stops counting and returns the allocations made on the tracked threads since `start`.
    static func stop() -> Int {
        MallocInterposerSwift.unhook()
        MallocInterposerSwift.setAllocationHook(nil)
        let count = allocationTracking.count.load(ordering: .relaxed)
        allocationTracking.set([])
        return count
    }

    /// The allocations counted since `start`, while counting goes on.
    static var counted: Int { allocationTracking.count.load(ordering: .relaxed) }

    /// Whether the interposer is loaded: an allocation on this thread while hooked is seen.
    static func isActive() -> Bool {
        start(threads: [pthread_self()])
        let probe = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
        probe.deallocate()
        return stop() > 0
    }
}

/// The state the allocation hook reads. A global so that a C function pointer can reach it.
private let allocationTracking = AllocationTracking()

private final class AllocationTracking: Sendable {
    let thread0 = Atomic<UInt>(0)
    let thread1 = Atomic<UInt>(0)
    let thread2 = Atomic<UInt>(0)
    let thread3 = Atomic<UInt>(0)
    let count = Atomic<Int>(0)

    func set(_ threads: [pthread_t]) {
        let ids = threads.map { UInt($0) } + [0, 0, 0, 0]
        thread0.store(ids[0], ordering: .relaxed)
        thread1.store(ids[1], ordering: .relaxed)
        thread2.store(ids[2], ordering: .relaxed)
        thread3.store(ids[3], ordering: .releasing)
    }

    @inline(__always)
    func isTracked(_ id: UInt) -> Bool {
        id != 0
            && (id == thread0.load(ordering: .relaxed) || id == thread1.load(ordering: .relaxed)
                || id == thread2.load(ordering: .relaxed) || id == thread3.load(ordering: .acquiring))
    }
}
