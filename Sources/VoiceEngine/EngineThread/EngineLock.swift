#if canImport(Glibc)
    import Glibc
#endif

/// A plain mutex around a critical section, for state that is not `Sendable` itself.
///
/// `Synchronization.Mutex` hands its value to the closure as `inout sending`, which the engine's
/// state (a class full of codec handles) cannot be; this lock guards a section instead of a
/// value and leaves the type checker out of it. Callers take it while no engine thread owns the
/// state (virtual time, an app's thread that ticks), and the engine thread only to take the state
/// and give it back; audio device threads never do.
///
/// The mutex inherits priority: an app's audio thread that ticks the engine may run with
/// real-time priority, and a time-sharing thread holding the lock (a control call) must not be
/// preempted by the very threads that thread is waiting behind.
final class EngineLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_setprotocol(&attributes, Int32(PTHREAD_PRIO_INHERIT))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
