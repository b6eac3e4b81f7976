import Synchronization
import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

/// One participant's voice engine: its audio devices, its engine thread, its network, and every
/// call and match it takes part in. `VoiceChatService` (1:1 calls) and `Match` (named channels)
/// are the app's handles on it.
///
/// Thread contract: every method may be called from any thread. While the engine thread runs, it
/// alone touches the engine's state: control calls and signalling hand it commands, which it runs
/// at its next turn while their callers wait, and what the network receives waits in a lock-free
/// inbox. So the engine thread never waits for another thread. While it does not run (virtual
/// time, an app that ticks the engine itself), callers take the engine's lock instead. Device
/// threads never touch the state (they exchange audio through their rings). What the engine sends
/// goes out through its courier, so a client may call straight back in, and the engine thread
/// never waits on a socket or the app.
public final class VoiceEngine: Sendable {
    public let participant: ParticipantID
    public let configuration: EngineConfiguration
    /// Only touched by the engine thread while it owns it (`commands` is open), else while `lock`
    /// is held: which is what makes sharing it across threads safe.
    private nonisolated(unsafe) let core: EngineCore
    private let lock = EngineLock()
    private let commands = EngineCommandQueue()
    private let clock: ManualClock?
    private let input: (any AudioInput)?
    private let output: (any AudioOutput)?
    private let runner = Mutex<EngineThread?>(nil)
    /// Datagrams from network threads, with their route and arrival time, for the engine thread.
    private let inbox: DatagramQueue<ReceivedDatagram>
    /// Per-frame changes from the game's threads, which do not wait for the engine thread's turn.
    private let orders: DatagramQueue<EngineOrder>
    private let courier: EngineCourier
    private let commandWaits = DurationRecorder()
    /// The echo canceller's reference, which the game's audio thread feeds without the lock.
    private let playbackReference: PlaybackReference?
    /// Makes each match's relay connection; nil: this engine reaches no relay.
    let relays: (any RelayConnector)?

    /// Datagrams the inbox holds: a second of 30 speakers' voice behind a stalled engine thread.
    static let inboxCapacity = 2048
    /// Orders the queue holds: a hundred players moved every frame of a second-long stall, and more.
    static let orderCapacity = 4096

    struct ReceivedDatagram {
        var route: PathRoute
        var arrival: MediaTime
    }

    /// - Parameters:
    ///   - input, output: the microphone and speaker (ALSA devices, WAV files, …); nil for none.
    ///   - network: where direct-path datagrams go (VoiceIO's `UDPNetwork`); nil for none.
    ///   - relays: what joins a match's relay (VoiceIO's `RelayLinks`); nil: matches have no relay.
    ///   - clock: nil for real time; a `ManualClock` for virtual time, driven with `tick`.
    public init(
        participant: ParticipantID, configuration: EngineConfiguration = EngineConfiguration(),
        input: (any AudioInput)? = nil, output: (any AudioOutput)? = nil, network: (any DatagramNetwork)? = nil,
        relays: (any RelayConnector)? = nil, clock: ManualClock? = nil
    ) throws(VoiceChatError) {
        guard !participant.isEmpty else { throw .invalidPlayers("the participant ID is empty") }
        self.participant = participant
        self.configuration = configuration
        self.relays = relays
        self.clock = clock
        self.input = input
        self.output = output
        inbox = DatagramQueue(capacity: Self.inboxCapacity, slotBytes: EngineCore.datagramCapacity)
        orders = DatagramQueue(capacity: Self.orderCapacity, slotBytes: 0)
        courier = EngineCourier(network: network, slotBytes: EngineCore.datagramCapacity)
        let outputChannels = output?.format.channels ?? configuration.outputChannels
        guard outputChannels == 1 || outputChannels == 2 else {
            throw .outOfRange("the engine mixes 1 (mono) or 2 (stereo) channels, not \(outputChannels)")
        }
        let core = try EngineCore(
            participant: participant, configuration: configuration, network: network,
            outbox: EngineOutbox(datagrams: courier.datagrams),
            cancelsEcho: configuration.echoCancellation.isOn(input: input, output: output),
            outputChannels: outputChannels)
        self.core = core
        playbackReference = core.echoCanceller?.reference
    }

    /// The engine's current time.
    public var now: MediaTime { clock?.now ?? MediaTime.monotonicNow() }

    /// Starts the devices and the engine thread that runs one frame per frame duration.
    public func start() throws(VoiceChatError) {
        try runner.withLock { runner throws(VoiceChatError) in
            guard runner == nil else { return }
            do throws(AudioDeviceError) {
                try input?.start()
                try output?.start()
            } catch {
                input?.stop()
                throw .device(error)
            }
            do throws(AudioThreadError) {
                try courier.start()
                runner = try EngineThread(engine: self, input: input, output: output)
            } catch {
                courier.stop()
                input?.stop()
                output?.stop()
                throw .thread(error)
            }
        }
    }

    /// Starts the engine's courier thread alone, for an app that ticks the engine from an audio
    /// thread of its own (`tick(at:captured:output:)`): each tick then opens what the network
    /// delivered since the last and leaves every send, event and call into the app to the
    /// courier, as the engine's own thread does, so the app's thread never waits on them.
    /// `shutDown()` stops it.
    public func startDelivering() throws(VoiceChatError) {
        do throws(AudioThreadError) {
            try courier.start()
        } catch {
            throw .thread(error)
        }
    }

    /// Stops the engine thread (or the courier alone) and the devices. Calls and matches end without notice to peers;
    /// stop them first for a clean goodbye.
    public func shutDown() {
        let thread = runner.withLock { runner in
            defer { runner = nil }
            return runner
        }
        thread?.stop()
        courier.stop()
        input?.stop()
        output?.stop()
        let links = withCore { core in core.sessions.values.compactMap(\.relay?.link) }
        for link in links { Task { await link.close() } }
    }

    /// Runs one frame at `now`: sends `captured` (one frame, or nil for none), writes the mix into
    /// `output` (one frame of `outputChannels` interleaved), and runs paths, timeouts and keys.
    /// Simulations and tests call this in virtual time, and an app's audio thread after
    /// `startDelivering()` (which then leaves the sending to the courier, as the engine thread
    /// does). While the engine's own thread runs, the frame is run there, as a call is.
    public func tick(
        at now: MediaTime, captured: UnsafeBufferPointer<Float>?, output: UnsafeMutableBufferPointer<Float>
    ) {
        // The caller plays the whole frame, so all of it is the echo canceller's reference.
        // A local function, not a closure value, so that nothing is allocated for it per frame.
        func turn(_ core: EngineCore) {
            core.tick(now: now, captured: captured, output: output)
            core.speakerPlayed(UnsafeBufferPointer(output))
        }
        if courier.isRunning {
            withCoreOnTickingThread(turn)
        } else {
            withCore(turn)
        }
    }

    /// Adds what the game plays besides the engine's voices (music, effects) to what the echo
    /// canceller removes from the microphone: call it from the game's audio thread with each block
    /// as it hands it to its own device, 48 kHz, mono or `channels` interleaved. Never blocks or
    /// allocates; returns the frames taken (all, unless the engine has stopped playing), or 0 when
    /// the engine does not cancel echo. One thread at a time.
    @discardableResult
    public func addPlaybackReference(_ samples: UnsafeBufferPointer<Float>, channels: Int = 1) -> Int {
        playbackReference?.addGameMix(samples, channels: channels) ?? 0
    }

    /// What the echo canceller did and the echo return loss enhancement it measures; nil when it is off.
    /// Whether the microphone has ended and will deliver nothing more (a file played to its end).
    public var isInputExhausted: Bool { input?.isExhausted ?? false }

    public var echoCancellation: CaptureEchoCanceller.Statistics? {
        withCore { $0.echoCanceller?.statistics }
    }

    /// Hands `order` to the engine without waiting for it: checked here, applied by the engine
    /// thread at its next turn, before the frame (at once, under the lock, while no engine thread
    /// runs). Never blocks; throws for arguments the engine would refuse, or a queue full because
    /// the engine thread has stalled.
    public func hand(_ order: EngineOrder) throws(VoiceChatError) {
        try order.validate()
        guard orders.push(UnsafeRawBufferPointer(start: nil, count: 0), label: order) else {
            throw .ordersBacklogged(orders.capacity)
        }
        if !commands.isOpen { withCore { _ in } }
    }

    /// Hands in a datagram that arrived from `address` on the direct path.
    public func receiveDatagram(_ bytes: [UInt8], from address: PeerAddress) {
        receiveDatagram(bytes, route: .direct(address))
    }

    /// Queues a datagram for the thread that ticks, which opens it at its next turn; in virtual time,
    /// where no such thread runs, it is opened now. What a `RelayConnection` hands in from the relay.
    public func receiveDatagram(_ bytes: [UInt8], route: PathRoute) {
        let arrival = now
        _ = bytes.withUnsafeBytes { inbox.push($0, label: ReceivedDatagram(route: route, arrival: arrival)) }
        if !courier.isRunning { withCore { _ in } }
    }

    /// How late the engine thread woke from its timed waits since it started; nil while it does not run.
    public var engineThreadLateness: DurationHistogram? {
        runner.withLock { $0?.lateness.histogram }
    }

    /// How long control calls and signalling waited for the engine thread to run them, each time,
    /// while it ran: what a caller waits for a change to take effect.
    public var engineCommandWaits: DurationHistogram { commandWaits.histogram }

    /// How long the engine thread spent running the calls and signalling handed in, each turn that
    /// had any, since it started; nil while it does not run.
    public var engineCommandRuns: DurationHistogram? {
        runner.withLock { $0?.commandRuns.histogram }
    }

    /// The engine thread's POSIX id while it runs, for per-thread measurements (allocations, CPU).
    public var engineSystemThread: pthread_t? {
        runner.withLock { $0?.systemThread }
    }

    /// Whether the engine thread runs with the real-time priority it asks for.
    public var isEngineThreadRealTime: Bool {
        runner.withLock { $0?.isRealTimeScheduled ?? false }
    }

    /// Counters of refused input, for statistics and tests.
    public var counters: EngineCounters {
        let read = withCore { ($0.counters, $0.datagramsSent) }
        var counters = read.0
        counters.datagramsSent = read.1.byName
        counters.deviceCatchUp.engineThreadLatestWakeMilliseconds = engineThreadLateness?.longestMilliseconds
        counters.deviceCatchUp.engineCommandLongestRunMilliseconds = engineCommandRuns?.longestMilliseconds
        counters.datagramsDroppedReceiving = inbox.refusedFullCount
        // No envelope is larger than a slot: anything that is, is not one.
        counters.malformedDatagrams += inbox.refusedOversizedCount
        return counters
    }

    /// Samples per frame at 48 kHz, per channel.
    public var frameSamples: Int { configuration.frameDuration.engineFrames }

    /// The mix's channels: 1, or 2 (interleaved stereo, positional channels panned).
    public var outputChannels: Int { core.mixer.outputChannels }

    /// Handles signalling an app received for a call or match. The JSON is decoded, and any
    /// pairwise key, key pair or sender key the message needs is made or opened, on this thread:
    /// the engine's state sees only the outcome.
    func receiveSignalling(
        _ data: [UInt8], from sender: ParticipantID, client: any VoiceChatClient, events: SessionEvents
    ) {
        let now = self.now
        let decoded = Result { () throws(SignallingError) in try SignallingMessage(decoding: data) }
        var agreed: PairwiseKeyAgreement?
        var keys: SessionKeyPair?
        var unwrapped: UnwrappedSenderKeys?
        switch decoded {
        case .success(.accept), .success(.hello):
            agreed = withCore { $0.pairwiseKeyInputs(for: decoded, from: sender) }.map {
                PairwiseKeyAgreement($0.0, inputs: $0.1)
            }
        case .success(.invite): keys = SessionKeyPair()
        case .success(.keys(let reference, let wrapped)):
            unwrapped = withCore { $0.pairwiseKey(of: sender, in: reference) }.map {
                UnwrappedSenderKeys(wrapped, pairwise: $0, sender: sender)
            }
        default: break
        }
        withCore { core in
            core.receiveSignalling(
                decoded, from: sender, client: client, events: events, agreed: agreed, keys: keys,
                unwrapped: unwrapped, now: now)
        }
    }

    /// Runs `body` on the engine's state, then delivers what it queued. While the engine thread
    /// runs, it runs `body` at its next turn and this waits; otherwise `body` runs here, under the
    /// engine's lock, and in virtual time (no courier thread, so no thread that ticks on its own)
    /// what the inbox holds is opened first.
    func withCore<Result, Failure: Error>(_ body: (EngineCore) throws(Failure) -> Result) throws(Failure) -> Result {
        while true {
            if let outcome = handToEngineThread(body) { return try outcome.get() }
            var queued = false
            let outcome = lock.withLock { () -> Swift.Result<Result, Failure>? in
                // The engine thread took the state between the two looks: hand it over after all.
                guard !commands.isOpen else { return nil }
                defer { queued = courier.post(&core.outbox) }
                if !courier.isRunning { openReceived(core) }
                return Swift.Result { () throws(Failure) -> Result in try body(core) }
            }
            if queued { courier.deliver() }
            if let outcome { return try outcome.get() }
        }
    }

    /// Has the engine thread run `body` at its next turn and waits for it; nil when the engine
    /// thread does not own the state.
    private func handToEngineThread<Result, Failure: Error>(
        _ body: (EngineCore) throws(Failure) -> Result
    ) -> Swift.Result<Result, Failure>? {
        var outcome: Swift.Result<Result, Failure>?
        let run = { (core: EngineCore) in outcome = Swift.Result { () throws(Failure) -> Result in try body(core) } }
        withoutActuallyEscaping(run) { run in
            let command = EngineCommand(run)
            let submitted = MediaTime.monotonicNow()
            guard commands.submit(command) else { return }
            command.waitUntilRun()
            commandWaits.record(MediaTime.monotonicNow() - submitted)
        }
        // What the engine thread queued for it goes out before the call returns, unless the
        // courier's thread is at it already.
        if outcome != nil { courier.deliver() }
        return outcome
    }

    /// The turn of an app's thread that ticks the engine itself (`startDelivering()`): under the
    /// engine's lock, opens what arrived, runs `body`, and leaves the sending to the courier's thread.
    private func withCoreOnTickingThread(_ body: (EngineCore) -> Void) {
        let queued = lock.withLock { () -> Bool? in
            guard !commands.isOpen else { return nil }
            openReceived(core)
            body(core)
            return courier.post(&core.outbox)
        }
        switch queued {
        case nil: withCore(body)
        case true?: courier.wakeThread()
        case false?: break
        }
    }

    // MARK: The engine thread

    /// Gives the engine's state to the engine thread about to start, once callers of the lock are
    /// done: from now on, calls reach it as commands, and `wake` has it run them.
    func engineThreadTakesCore(waking wake: @escaping @Sendable () -> Void) {
        lock.withLock { commands.open(waking: wake) }
    }

    /// The engine thread's turn, on the state it owns: opens what arrived, runs `body`, then (if
    /// `runsCommands`) the commands handed in, timed into `commandRuns`, and leaves the sending to
    /// the courier's thread. Commands come after the frame, so that they never hold up one that is due.
    func engineThreadTurn(runsCommands: Bool, commandRuns: DurationRecorder, _ body: (EngineCore) -> Void) {
        openReceived(core)
        body(core)
        postOutbox()
        guard runsCommands else { return }
        let started = MediaTime.monotonicNow()
        commands.runPending(on: core) {
            postOutbox()
            commandRuns.record(MediaTime.monotonicNow() - started)
        }
    }

    /// The engine thread, stopping, runs what was handed in and gives the state back to the lock.
    func engineThreadReturnsCore() {
        lock.withLock {
            commands.close(running: core) { postOutbox() }
        }
    }

    private func postOutbox() {
        if courier.post(&core.outbox) { courier.wakeThread() }
    }

    /// Applies the orders handed in, then opens and dispatches every datagram waiting in the
    /// inbox, each at the time it arrived.
    private func openReceived(_ core: EngineCore) {
        // The clock is read only when an order waits: this runs every turn.
        var now: MediaTime?
        orders.drain { _, order in
            let time = now ?? self.now
            now = time
            core.apply(order, now: time)
        }
        inbox.drain { bytes, received in
            core.receiveDatagram(bytes, route: received.route, now: received.arrival)
        }
    }
}
