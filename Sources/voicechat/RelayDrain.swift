import VoiceRelay

/// A cluster relay's drain, started once (by SIGTERM or `relay-admin drain`): the relay moves its
/// matches, then the command stops.
actor RelayDrain {
    private let relay: RelayServer
    private let deadline: Duration
    private var task: Task<Void, Never>?
    private var done: (@Sendable () async -> Void)?

    init(relay: RelayServer, deadline: Duration) {
        self.relay = relay
        self.deadline = deadline
    }

    /// What to do once drained: stop the command.
    func whenDone(_ body: @escaping @Sendable () async -> Void) { done = body }

    /// Starts draining, unless it has started already; returns how many matches the relay holds.
    func start() async -> (held: Int, started: Bool) {
        // Decided before the first suspension: two requests at once start one drain.
        guard task == nil else { return (await relay.heldMatches(), false) }
        let (relay, deadline, done) = (self.relay, self.deadline, self.done)
        task = Task {
            _ = await relay.drain(within: deadline)
            await done?()
        }
        let held = await relay.heldMatches()
        printStatus(
            "draining: moving \(held) match\(held == 1 ? "" : "es") to other relays, stopping once they have moved "
                + "or within \(deadline.components.seconds) s (Ctrl-C or SIGTERM again: stop now)")
        return (held, true)
    }
}
