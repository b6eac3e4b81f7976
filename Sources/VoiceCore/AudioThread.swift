import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A dedicated OS thread for a loop that keeps time: a device loop, the engine's frame loop, or a
/// helper of a device that may block (a file device's disk writer).
///
/// Such loops need a thread of their own that nothing else schedules work on: a Swift
/// concurrency executor or Dispatch queue may run unrelated jobs on it, and both allocate.
/// A `.realTime` thread asks for SCHED_FIFO priority and keeps the default policy where the
/// process lacks the privilege (as in containers and CI); `isRealTimeScheduled` tells which.
/// A `.normal` thread never asks, so that blocking work on it (a slow disk) cannot starve the
/// rest of the system.
///
/// The body runs once; it is expected to loop until `shouldStop` is true. `join` sets that
/// flag and waits for the body to return.
public final class AudioThread: Sendable {
    /// What the thread is for, for messages.
    public let name: String
    private let stopRequested = Atomic<Bool>(false)
    private let realTimeScheduled = Atomic<Bool>(false)
    private let handle = Mutex<pthread_t?>(nil)

    public enum Scheduling: Sendable, Hashable {
        /// SCHED_FIFO at this priority (1…99) where permitted.
        case realTime(priority: Int32)
        /// The default time-sharing policy.
        case normal
    }

    /// Starts a thread running `body`. The closure is called once, on the new thread, with
    /// this `AudioThread` so it can poll `shouldStop`.
    public init(
        name: String,
        scheduling: Scheduling = .realTime(priority: 70),
        body: @escaping @Sendable (AudioThread) -> Void
    ) throws(AudioThreadError) {
        self.name = name
        let context = Unmanaged.passRetained(AudioThreadContext(thread: nil, body: body, scheduling: scheduling))
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

    /// The thread's POSIX id until `join`, for per-thread measurements; nil after it.
    public var systemThread: pthread_t? {
        handle.withLock { $0 }
    }

    /// True once the body should return. Lock-free: safe to poll from the audio loop.
    public var shouldStop: Bool { stopRequested.load(ordering: .acquiring) }

    /// Whether the kernel granted real-time (SCHED_FIFO) scheduling.
    public var isRealTimeScheduled: Bool { realTimeScheduled.load(ordering: .relaxed) }

    /// Asks the body to return, without waiting: for a thread that must first be woken.
    public func requestStop() {
        stopRequested.store(true, ordering: .releasing)
    }

    /// Asks the body to return and waits until it has. Safe to call more than once and from
    /// any thread but the audio thread itself.
    public func join() {
        requestStop()
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
    let scheduling: AudioThread.Scheduling

    init(thread: AudioThread?, body: @escaping @Sendable (AudioThread) -> Void, scheduling: AudioThread.Scheduling) {
        self.thread = thread
        self.body = body
        self.scheduling = scheduling
    }

    func run() {
        guard let thread else { return }
        name(thread.name)
        if case .realTime(let priority) = scheduling {
            var parameters = sched_param()
            parameters.sched_priority = priority
            thread.markRealTime(pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0)
        }
        self.thread = nil
        body(thread)
    }

    /// Names the calling thread, so that top, perf and /proc tell the engine's threads apart
    /// (pthread_setname_np is a GNU extension the Glibc module does not declare; Linux keeps
    /// 15 bytes of a name). Before the loop starts: nothing of it runs in real time.
    private func name(_ name: String) {
        var bytes = Array(name.utf8.prefix(15))
        while !bytes.isEmpty && String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
    }
}
