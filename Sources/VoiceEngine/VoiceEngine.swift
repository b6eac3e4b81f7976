import Synchronization
import VoiceCore
import VoiceTransport

/// One participant's voice engine: its audio devices, its engine thread, its network, and every
/// call and match it takes part in. `VoiceChatService` (1:1 calls) and `Match` (named channels)
/// are the app's handles on it.
///
/// Thread contract: every method may be called from any thread. The engine's state lives behind
/// one lock that the engine thread takes once per frame and control calls take briefly; device
/// threads never take it (they exchange audio through their rings). What the engine sends to the
/// app's client is sent after the lock is released, so a client may call straight back in.
public final class VoiceEngine: Sendable {
    public let participant: ParticipantID
    public let configuration: EngineConfiguration
    /// Only touched while `lock` is held, which is what makes sharing it across threads safe.
    private nonisolated(unsafe) let core: EngineCore
    private let lock = EngineLock()
    private let clock: ManualClock?
    private let input: (any AudioInput)?
    private let output: (any AudioOutput)?
    private let network: (any DatagramNetwork)?
    private let runner = Mutex<EngineThread?>(nil)

    /// - Parameters:
    ///   - input, output: the microphone and speaker (ALSA devices, WAV files, …); nil for none.
    ///   - network: where direct-path datagrams go (a bound `UDPNetwork`); nil for none.
    ///   - clock: nil for real time; a `ManualClock` for virtual time, driven with `tick`.
    public init(
        participant: ParticipantID, configuration: EngineConfiguration = EngineConfiguration(),
        input: (any AudioInput)? = nil, output: (any AudioOutput)? = nil, network: (any DatagramNetwork)? = nil,
        clock: ManualClock? = nil
    ) throws(VoiceChatError) {
        guard !participant.isEmpty else { throw .invalidPlayers("the participant ID is empty") }
        self.participant = participant
        self.configuration = configuration
        self.clock = clock
        self.input = input
        self.output = output
        self.network = network
        let core = try EngineCore(participant: participant, configuration: configuration, network: network)
        self.core = core
    }

    /// The engine's current time.
    public var now: MediaTime { clock?.now ?? MediaTime.monotonicNow() }

    /// Starts the devices and the engine thread that runs one frame per frame duration.
    public func start() throws(VoiceChatError) {
        try runner.withLock { runner throws(VoiceChatError) in
            guard runner == nil else { return }
            do {
                try input?.start()
                try output?.start()
            } catch {
                input?.stop()
                throw .media("\(error)")
            }
            do throws(AudioThreadError) {
                runner = try EngineThread(engine: self, input: input, output: output)
            } catch {
                input?.stop()
                output?.stop()
                throw .media(error.description)
            }
        }
    }

    /// Stops the engine thread and the devices. Calls and matches end without notice to peers;
    /// stop them first for a clean goodbye.
    public func shutDown() {
        let thread = runner.withLock { runner in
            defer { runner = nil }
            return runner
        }
        thread?.stop()
        input?.stop()
        output?.stop()
        let links = withCore { core in core.sessions.values.compactMap(\.relay?.link) }
        for link in links { Task { await link.close() } }
    }

    /// Runs one frame at `now`: sends `captured` (one frame, or nil for none), writes the mix into
    /// `output` (one frame), and runs paths, timeouts and keys. The engine thread calls this; so do
    /// simulations and tests in virtual time.
    public func tick(
        at now: MediaTime, captured: UnsafeBufferPointer<Float>?, output: UnsafeMutableBufferPointer<Float>
    ) {
        withCore { core in core.tick(now: now, captured: captured, output: output) }
    }

    /// Hands in a datagram that arrived from `address` on the direct path.
    public func receiveDatagram(_ bytes: [UInt8], from address: PeerAddress) {
        receiveDatagram(bytes, route: .direct(address))
    }

    func receiveDatagram(_ bytes: [UInt8], route: PathRoute) {
        let now = self.now
        withCore { core in core.receiveDatagram(bytes, route: route, now: now) }
    }

    /// Counters of refused input, for statistics and tests.
    public var counters: EngineCounters { withCore { $0.counters } }

    /// Samples per frame at 48 kHz.
    public var frameSamples: Int { configuration.frameDuration.engineFrames }

    /// Runs `body` under the engine's lock, then sends what it queued.
    func withCore<Result, Failure: Error>(_ body: (EngineCore) throws(Failure) -> Result) throws(Failure) -> Result {
        var items: [OutgoingItem] = []
        defer { send(items) }
        return try lock.withLock { () throws(Failure) -> Result in
            defer { items = core.outbox.take() }
            return try body(core)
        }
    }

    private func send(_ items: [OutgoingItem]) {
        for item in items {
            switch item {
            case .signalling(let bytes, let participant, let client): client.send(bytes, to: participant)
            case .realTime(let bytes, let participant, let client): client.sendRealTime(bytes, to: participant)
            case .datagram(let bytes, let address):
                network?.send(bytes, to: address)
            case .relayDatagram(let bytes, let kind, let link): link.send(bytes, via: kind)
            case .relayInterest(let channels, let muted, let link): link.update(channels: channels, muted: muted)
            case .callEvent(let event, let sink): sink.deliver(event)
            case .matchEvent(let event, let sink): sink.deliver(event)
            }
        }
    }
}
