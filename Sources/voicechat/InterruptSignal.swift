import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a flag that running loops poll, so that a command
/// stops cleanly: devices are stopped, files finished, the terminal restored.
enum InterruptSignal {
    private static let received = Atomic<Bool>(false)

    /// Installs the handlers. The handler only stores to an atomic, which is async-signal-safe.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in InterruptSignal.received.store(true, ordering: .relaxed) }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    static var wasReceived: Bool { received.load(ordering: .relaxed) }

    /// Asks the running command to stop as if Ctrl-C had been pressed (the console's quit key).
    static func request() { received.store(true, ordering: .relaxed) }
}
