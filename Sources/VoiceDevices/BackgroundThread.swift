import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A plain OS thread at the default scheduling policy, for work that must stay off the audio
/// threads but may block: writing to disk, for instance. Unlike `AudioThread` it never asks
/// for real-time priority, so a slow disk cannot starve the rest of the system.
final class BackgroundThread: Sendable {
    let name: String
    private let handle = Mutex<pthread_t?>(nil)
    private let identifier = Atomic<UInt>(0)

    /// Starts a thread that runs `body` once.
    init(name: String, body: @escaping @Sendable () -> Void) throws(AudioThreadError) {
        self.name = name
        let context = Unmanaged.passRetained(BackgroundThreadBody(body))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<BackgroundThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, context.toOpaque())
        guard status == 0 else {
            context.release()
            throw AudioThreadError(name: name, errno: status)
        }
        identifier.store(UInt(thread), ordering: .releasing)
        handle.withLock { $0 = thread }
    }

    /// The thread's POSIX id; stays valid until `join`.
    var systemThread: pthread_t { pthread_t(identifier.load(ordering: .acquiring)) }

    /// Waits for the body to return. Safe to call more than once.
    func join() {
        let thread = handle.withLock { current -> pthread_t? in
            defer { current = nil }
            return current
        }
        if let thread { pthread_join(thread, nil) }
    }

    deinit {
        join()
    }
}

/// The closure handed through `pthread_create`'s context pointer, whose entry point cannot capture.
private final class BackgroundThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
