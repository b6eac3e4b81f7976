import CVoiceChatABI
import Foundation
import Synchronization
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceIO

/// An engine a C caller made: the engine, its UDP socket, its calls, its game-owned audio (if the
/// game owns it), its events and the snapshot the game reads, and the event thread that keeps
/// both moving.
final class EngineHandle: Sendable {
    let engine: VoiceEngine
    let network: UDPNetwork
    let service: VoiceChatService
    let gameAudio: GameAudioDevice?
    let events: EngineEvents
    let offersRealTimeData: Bool
    private let snapshot = Mutex(EngineSnapshot())
    /// When the game last read the snapshot: it is kept fresh only while the game reads it.
    private let lastRead = Atomic<Int64>(MediaTime.min)
    /// How long after the game's last read the snapshot is still refreshed.
    static let readInterest = MediaTime.milliseconds(2_000)
    /// The matches joined and not yet left, by handle number.
    let matches = Mutex<[UInt: MatchHandle]>([:])
    /// The players whose voice the game reads apart, and the rings it comes in.
    let playerAudio = Mutex<[ParticipantID: AudioRing]>([:])
    private let eventThread = Mutex<EventThread?>(nil)

    init(
        engine: VoiceEngine, network: UDPNetwork, gameAudio: GameAudioDevice?, events: EngineEvents,
        offersRealTimeData: Bool
    ) {
        self.engine = engine
        self.network = network
        self.gameAudio = gameAudio
        self.events = events
        self.offersRealTimeData = offersRealTimeData
        let client = AppCarriedClient(
            participant: engine.participant, offersRealTimeData: offersRealTimeData, events: events, match: 0)
        service = VoiceChatService(engine: engine, client: client) { event in
            events.post(EngineEventRecord(event))
        }
        service.isInputMeteringEnabled = true
        service.isOutputMeteringEnabled = true
    }

    /// Starts the thread that hands events to the callback and refreshes the snapshot.
    func startEventThread(doorbell: WakeCounter) {
        let thread = EventThread(doorbell: doorbell) { [self] in
            if let callback = events.callback {
                for event in events.takeAll() {
                    event.withCEvent { callback.function($0, callback.context) }
                }
            }
        } refresh: { [self] in
            refreshSnapshot()
        }
        eventThread.withLock { $0 = thread }
    }

    /// What the game reads: the snapshot, which the event thread refreshes every 50 ms while the
    /// game keeps reading it. After two seconds without a read it is taken here first (waiting for
    /// the engine's turn once), so that an engine nobody reads pays nothing for it.
    func readSnapshot() -> EngineSnapshot {
        let now = MediaTime.monotonicNow()
        let previous = lastRead.exchange(now, ordering: .relaxed)
        if previous < now - Self.readInterest { refreshSnapshot(evenIfUnread: true) }
        return snapshot.withLock { $0 }
    }

    /// Takes the engine's statistics and meters for the game's reads, while it reads them
    /// (waiting for the engine's turn here, on the event thread, not on the game's).
    func refreshSnapshot(evenIfUnread: Bool = false) {
        guard evenIfUnread || lastRead.load(ordering: .relaxed) >= MediaTime.monotonicNow() - Self.readInterest else {
            return
        }
        let statistics = engine.statistics()
        let levels = service.meterLevels
        snapshot.withLock { snapshot in
            snapshot.statistics = statistics
            snapshot.inputDBFS = levels.input
            snapshot.outputDBFS = levels.output
        }
    }

    /// Leaves every match, stops the engine, closes its socket and ends the event thread.
    func shutDown() async {
        let joined = matches.withLock { matches in
            defer { matches = [:] }
            return Array(matches.values)
        }
        for match in joined { await match.leave() }
        engine.shutDown()
        await network.close()
        let thread = eventThread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        thread?.stop()
    }
}

/// The engine's event thread: every 50 ms, or as soon as an event waits for the callback, it
/// delivers events and refreshes the snapshot; a slow callback holds up only this thread.
final class EventThread: Sendable {
    static let refreshInterval = MediaTime.milliseconds(50)

    private final class Flags: Sendable {
        let stopping = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)
        /// The thread's own pthread_t, once it runs.
        let running = Atomic<UInt>(0)
    }

    private let flags = Flags()
    private let doorbell: WakeCounter

    init(doorbell: WakeCounter, deliver: @escaping @Sendable () -> Void, refresh: @escaping @Sendable () -> Void) {
        self.doorbell = doorbell
        let thread = Thread { [flags] in
            flags.running.store(UInt(pthread_self()), ordering: .releasing)
            var nextRefresh = MediaTime.monotonicNow()
            while !flags.stopping.load(ordering: .acquiring) {
                let seen = doorbell.value
                deliver()
                let now = MediaTime.monotonicNow()
                if now >= nextRefresh {
                    refresh()
                    nextRefresh = now + Self.refreshInterval
                }
                doorbell.wait(after: seen, until: nextRefresh)
            }
            deliver()
            flags.finished.signal()
        }
        thread.name = "voicechat events"
        thread.start()
    }

    /// Ends the thread after it delivered what waits, and returns once it has; called from the
    /// event callback itself (a game that destroys its engine there), it returns at once and the
    /// thread ends when the callback does.
    func stop() {
        flags.stopping.store(true, ordering: .releasing)
        doorbell.bump()
        if flags.running.load(ordering: .acquiring) != UInt(pthread_self()) { flags.finished.wait() }
    }
}
