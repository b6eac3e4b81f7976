import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A dedicated OS thread for device I/O.
///
/// Device loops need a thread of their own that nothing else schedules work on: a Swift
/// concurrency executor or Dispatch queue may run unrelated jobs on it, and both allocate.
/// The thread asks for SCHED_FIFO priority and keeps the default policy where the process
/// lacks the privilege (as in containers and CI); `isRealTimeScheduled` tells which.
///
/// The body runs once; it is expected to loop until `shouldStop` is true. `join` sets that
/// flag and waits for the body to return.
public final class AudioThread: Sendable {
    /// What the thread is for, for messages.
    public let name: String
    private let stopRequested = Atomic<Bool>(false)
    private let realTimeScheduled = Atomic<Bool>(false)
    private let handle = Mutex<pthread_t?>(nil)

    /// Starts a thread running `body`. The closure is called once, on the new thread, with
    /// this `AudioThread` so it can poll `shouldStop`.
    public init(name: String, priority: Int32 = 70, body: @escaping @Sendable (AudioThread) -> Void)
        throws(AudioThreadError)
    {
        self.name = name
        let context = Unmanaged.passRetained(AudioThreadContext(thread: nil, body: body, priority: priority))
        context.takeUnretainedValue().thread = self
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                let context = Unmanaged<AudioThreadContext>.fromOpaque(raw!).takeRetainedValue()
                context.run()
                return nil
            }, context.toOpaque())
        guard status == 0 else {
            context.release()
            throw AudioThreadError(name: name, errno: status)
        }
        handle.withLock { $0 = thread }
    }

    /// True once the body should return. Lock-free: safe to poll from the audio loop.
    public var shouldStop: Bool { stopRequested.load(ordering: .acquiring) }

    /// Whether the kernel granted real-time (SCHED_FIFO) scheduling.
    public var isRealTimeScheduled: Bool { realTimeScheduled.load(ordering: .relaxed) }

    /// Asks the body to return and waits until it has. Safe to call more than once and from
    /// any thread but the audio thread itself.
    public func join() {
        stopRequested.store(true, ordering: .releasing)
        let thread = handle.withLock { current -> pthread_t? in
            defer { current = nil }
            return current
        }
        if let thread {
            pthread_join(thread, nil)
        }
    }

    fileprivate func markRealTime(_ granted: Bool) {
        realTimeScheduled.store(granted, ordering: .relaxed)
    }

    deinit {
        join()
    }
}

/// The thread could not be created (out of threads or memory).
public struct AudioThreadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var errno: Int32

    public var description: String {
        "cannot start audio thread '\(name)': \(String(cString: strerror(errno)))"
    }
}

/// What the new thread needs, passed through `pthread_create`'s context pointer because its
/// entry point cannot capture.
private final class AudioThreadContext: @unchecked Sendable {
    // Set once, before the thread starts, and read only by it.
    var thread: AudioThread?
    let body: @Sendable (AudioThread) -> Void
    let priority: Int32

    init(thread: AudioThread?, body: @escaping @Sendable (AudioThread) -> Void, priority: Int32) {
        self.thread = thread
        self.body = body
        self.priority = priority
    }

    func run() {
        guard let thread else { return }
        var parameters = sched_param()
        parameters.sched_priority = priority
        thread.markRealTime(pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0)
        self.thread = nil
        body(thread)
    }
}
