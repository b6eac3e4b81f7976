import Synchronization
import Testing
import VoiceCore

@testable import VoiceEngine

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct EngineCommandQueueTests {
    private static func makeCore() throws -> EngineCore {
        let courier = EngineCourier(network: nil, slotBytes: EngineCore.datagramCapacity)
        return try EngineCore(
            participant: "alice", configuration: EngineConfiguration(), network: nil,
            outbox: EngineOutbox(datagrams: courier.datagrams))
    }

    /// The counts that commands saw, in the order they ran.
    private final class Seen: Sendable {
        private let counts = Mutex<[Int]>([])
        var all: [Int] { counts.withLock { $0 } }
        func append(_ count: Int) { counts.withLock { $0.append(count) } }
    }

    /// A command that counts itself into the core's refused-signalling counter and records the
    /// count it saw, so that the order in which commands ran shows.
    private static func counting(_ seen: Seen) -> EngineCommand {
        EngineCommand { core in
            core.counters.signallingRejected += 1
            seen.append(core.counters.signallingRejected)
        }
    }

    @Test func aClosedQueueRefusesCommandsAndRunsNothing() throws {
        let queue = EngineCommandQueue()
        let seen = Seen()
        #expect(!queue.isOpen)
        #expect(!queue.submit(Self.counting(seen)))
        var woken = 0
        queue.runPending(on: try Self.makeCore()) { woken += 1 }
        #expect(seen.all.isEmpty)
        #expect(woken == 0, "a turn with nothing handed in has nothing to post")
    }

    @Test func aTurnRunsWhatWasHandedInInOrderThenLetsItsCallersGo() throws {
        let queue = EngineCommandQueue()
        let core = try Self.makeCore()
        let wakes = Atomic<Int>(0)
        queue.open { wakes.add(1, ordering: .relaxed) }
        let seen = Seen()
        var commands = (0..<3).map { _ in Self.counting(seen) }
        for command in commands { #expect(queue.submit(command)) }
        #expect(wakes.load(ordering: .relaxed) == 3, "every command wakes the engine thread")
        #expect(commands.allSatisfy { !$0.hasRun })
        var stillWaitingWhenPosted = false
        queue.runPending(on: core) {
            // What the commands queued is posted while their callers still wait for them.
            stillWaitingWhenPosted = commands.allSatisfy { !$0.hasRun }
        }
        #expect(stillWaitingWhenPosted)
        #expect(seen.all == [1, 2, 3])
        #expect(commands.allSatisfy { $0.hasRun })
        // The engine thread let go of each before saying it had run: the caller's is the last reference.
        for index in commands.indices { #expect(isKnownUniquelyReferenced(&commands[index])) }
        queue.runPending(on: core) { Issue.record("nothing was handed in since") }
    }

    @Test func closingRunsWhatWasHandedInAndRefusesWhatComesAfter() throws {
        let queue = EngineCommandQueue()
        let core = try Self.makeCore()
        queue.open {}
        let seen = Seen()
        let before = Self.counting(seen)
        #expect(queue.submit(before))
        queue.close(running: core) {}
        #expect(before.hasRun)
        #expect(!queue.isOpen)
        #expect(!queue.submit(Self.counting(seen)))
        #expect(seen.all == [1])
    }
}

/// The real engine thread owns the engine's state while it runs; calls run there, and none is lost.
@Suite struct EngineThreadOwnershipTests {
    private static func makeEngine() throws -> VoiceEngine {
        try VoiceEngine(participant: "alice")
    }

    @Test func whileTheEngineThreadRunsCallsRunOnItAndOtherwiseOnTheCaller() throws {
        let engine = try Self.makeEngine()
        let caller = pthread_self()
        #expect(engine.withCore { _ in pthread_equal(pthread_self(), caller) != 0 }, "no engine thread yet")
        try engine.start()
        let engineThread = try #require(engine.engineSystemThread)
        #expect(engine.withCore { _ in pthread_equal(pthread_self(), engineThread) != 0 })
        // A public call too: the change is made there and seen afterwards.
        let service = VoiceChatService(engine: engine, client: SilentClient())
        service.isMicrophoneMuted = true
        #expect(service.isMicrophoneMuted)
        #expect(engine.engineCommandWaits.count >= 3)
        engine.shutDown()
        #expect(engine.withCore { _ in pthread_equal(pthread_self(), caller) != 0 })
        #expect(service.isMicrophoneMuted)
    }

    @Test func callsFromManyThreadsEachRunOnceAndOneAtATime() throws {
        let engine = try Self.makeEngine()
        try engine.start()
        defer { engine.shutDown() }
        let threads = 8
        let calls = 200
        let seen = Mutex<[Int]>([])
        let workers = try (0..<threads).map { number in
            try AudioThread(name: "caller-\(number)", scheduling: .normal) { _ in
                for _ in 0..<calls {
                    let count = engine.withCore { core in
                        core.counters.signallingRejected += 1
                        return core.counters.signallingRejected
                    }
                    seen.withLock { $0.append(count) }
                }
            }
        }
        for worker in workers { worker.join() }
        // Each call saw its own increment: none ran alongside another, and none twice; and each
        // was the engine thread's to run.
        #expect(seen.withLock { $0 }.sorted() == Array(1...(threads * calls)))
        #expect(engine.engineCommandWaits.count == threads * calls)
    }

    @Test func aCallMadeWhileTheEngineThreadStartsOrStopsIsNotLost() throws {
        let engine = try Self.makeEngine()
        let stop = Atomic<Bool>(false)
        let made = Atomic<Int>(0)
        let caller = try AudioThread(name: "caller", scheduling: .normal) { _ in
            while !stop.load(ordering: .relaxed) {
                engine.withCore { core in core.counters.signallingRejected += 1 }
                made.add(1, ordering: .relaxed)
            }
        }
        for _ in 0..<20 {
            try engine.start()
            let seen = made.load(ordering: .relaxed)
            // Calls get through while the engine thread runs, before it is stopped again.
            while made.load(ordering: .relaxed) < seen + 5 { sched_yield() }
            engine.shutDown()
        }
        stop.store(true, ordering: .relaxed)
        caller.join()
        #expect(engine.counters.signallingRejected == made.load(ordering: .relaxed))
    }
}

/// An app that carries nothing: the ownership tests make no calls.
private final class SilentClient: VoiceChatClient {
    let participantID: ParticipantID = "alice"
    func send(_ data: [UInt8], to participant: ParticipantID) {}
    func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {}
}
