import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a flag that running loops poll, so that a command
/// stops cleanly: devices are stopped, files finished, the terminal restored.
enum InterruptSignal {
    /// The signal that arrived, 0 for none.
    private static let signalNumber = Atomic<Int32>(0)
    private static let quitRequested = Atomic<Bool>(false)

    /// Installs the handlers. The handler only stores to an atomic, which is async-signal-safe.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { signal in
            InterruptSignal.signalNumber.store(signal, ordering: .relaxed)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    static var wasReceived: Bool {
        signalNumber.load(ordering: .relaxed) != 0 || quitRequested.load(ordering: .relaxed)
    }

    /// How a stopped session's ending reads: "quit" after the console's quit key, "interrupted"
    /// after Ctrl-C or SIGTERM.
    static var ending: String {
        signalNumber.load(ordering: .relaxed) == 0 && quitRequested.load(ordering: .relaxed) ? "quit" : "interrupted"
    }

    /// Asks the running command to stop as if Ctrl-C had been pressed (the console's quit key),
    /// but as a normal end: it exits 0.
    static func request() { quitRequested.store(true, ordering: .relaxed) }

    /// Stops the running command as Ctrl-C's SIGINT does, exit status included: the console's
    /// raw terminal hands Ctrl-C over as a key instead of a signal.
    static func interrupt() { signalNumber.store(SIGINT, ordering: .relaxed) }

    /// What a command a signal stopped exits with once it has finished cleanly: 128 plus the
    /// signal's number (130 for Ctrl-C, 143 for SIGTERM), as shells report it, so that a script
    /// can tell an interrupted session from one that ran its course. Nil when no signal came.
    static var exitStatus: Int32? {
        let signal = signalNumber.load(ordering: .relaxed)
        return signal == 0 ? nil : 128 + signal
    }
}
