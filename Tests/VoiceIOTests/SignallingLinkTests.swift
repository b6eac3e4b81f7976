import Foundation
import Synchronization
import Testing
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceTestSupport
import VoiceWire

/// Collects what a link receives, for tests to wait on.
private final class FrameCollector: Sendable {
    let frames = Mutex<[SignallingFrame]>([])

    func receive(_ frame: SignallingFrame) { frames.withLock { $0.append(frame) } }

    /// Waits up to 10 s for `count` frames.
    func wait(for count: Int) async -> [SignallingFrame] {
        _ = await eventually(within: 10, every: .milliseconds(10)) { frames.withLock { $0.count } >= count }
        return frames.withLock { $0 }
    }
}

@Suite struct SignallingLinkTests {
    private func listener(_ name: ParticipantID = "alice") async throws -> TCPSignallingListener {
        try await TCPSignallingListener.bind(host: "127.0.0.1", port: 0, participant: name)
    }

    private func connect(_ port: Int, as name: ParticipantID = "bob") async throws -> TCPSignallingLink {
        try await TCPSignallingLink.connect(host: "127.0.0.1", port: port, participant: name, timeout: .seconds(5))
    }

    @Test func theHelloExchangeNamesBothSides() async throws {
        let listener = try await listener()
        async let accepted = listener.accept()
        let caller = try await connect(listener.port)
        let callee = try await accepted
        #expect(caller.remoteParticipant == "alice")
        #expect(caller.participantID == "bob")
        #expect(callee.remoteParticipant == "bob")
        #expect(callee.participantID == "alice")
        #expect(caller.offersRealTimeData)
        await caller.close()
        await callee.close()
        await listener.close()
    }

    @Test func signallingAndRealTimeFramesArriveInOrder() async throws {
        let listener = try await listener()
        async let accepted = listener.accept()
        let caller = try await connect(listener.port)
        let callee = try await accepted
        // Sent before anyone listens on the callee's side: held, then handed over in order.
        caller.send([1, 2, 3], to: "alice")
        caller.sendRealTime([9, 9], to: "alice")
        caller.send([4], to: "somebody-else")  // not the peer of this 1:1 link: dropped
        try await Task.sleep(for: .milliseconds(100))
        let collector = FrameCollector()
        callee.setReceiver { collector.receive($0) }
        caller.send(Array(repeating: 5, count: 100_000), to: "alice")
        let frames = await collector.wait(for: 3)
        #expect(
            frames == [.signalling([1, 2, 3]), .realTime([9, 9]), .signalling(Array(repeating: 5, count: 100_000))])

        let back = FrameCollector()
        caller.setReceiver { back.receive($0) }
        callee.sendRealTime([7], to: "bob")
        #expect(await back.wait(for: 1) == [.realTime([7])])
        await caller.close()
        await callee.close()
        await listener.close()
    }

    @Test func aSecondCallerIsRefusedWhileACallIsOpen() async throws {
        let listener = try await listener()
        async let accepted = listener.accept()
        let first = try await connect(listener.port)
        let callee = try await accepted
        await #expect {
            _ = try await connect(listener.port, as: "carol")
        } throws: { error in
            guard case .refused(let reason) = error as? SignallingLinkError else { return false }
            return reason.contains("already in a call with \"bob\"")
        }
        // Once the first call is over, the next caller gets through.
        await first.close()
        _ = await callee.closed
        async let next = listener.accept()
        let second = try await connect(listener.port, as: "carol")
        #expect(try await next.remoteParticipant == "carol")
        await second.close()
        await listener.close()
    }

    @Test func aCallerWithTheListenersNameIsRefused() async throws {
        let listener = try await listener()
        await #expect {
            _ = try await connect(listener.port, as: "alice")
        } throws: { error in
            guard case .refused(let reason) = error as? SignallingLinkError else { return false }
            return reason.contains("give each side its own --name")
        }
        await listener.close()
    }

    @Test func aHangUpIsNoticedOnTheOtherSide() async throws {
        let listener = try await listener()
        async let accepted = listener.accept()
        let caller = try await connect(listener.port)
        let callee = try await accepted
        await caller.close()
        #expect(await callee.closed == .peerHungUp)
        #expect(caller.ending == .closedLocally)
        await listener.close()
    }

    @Test func nothingListeningIsRefusedAtOnce() async throws {
        // A port that was just free: bind, learn it, close.
        let probe = try await listener()
        let port = probe.port
        await probe.close()
        await #expect(throws: SignallingLinkError.connectionRefused(host: "127.0.0.1", port: port)) {
            _ = try await connect(port)
        }
    }

    @Test func aPortInUseIsNamed() async throws {
        let first = try await listener()
        await #expect(throws: SignallingLinkError.portInUse(host: "127.0.0.1", port: first.port)) {
            _ = try await TCPSignallingListener.bind(host: "127.0.0.1", port: first.port, participant: "x")
        }
        await first.close()
    }

    @Test func aServerThatNeverSaysHelloTimesOut() async throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let started = Date()
        await #expect(throws: SignallingLinkError.helloTimedOut(host: "127.0.0.1", port: silent.port, seconds: 0.5)) {
            _ = try await TCPSignallingLink.connect(
                host: "127.0.0.1", port: silent.port, participant: "bob", timeout: .milliseconds(500))
        }
        // It gives up rather than hang; how soon is the loaded machine's business, not this test's.
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test func garbageFromThePeerIsAProtocolError() async throws {
        let listener = try await listener()
        let socket = try RawClient(port: listener.port)
        defer { socket.close() }
        // A valid hello, then a frame of an unknown type: the listener's link ends with that error.
        async let accepted = listener.accept()
        socket.write(SignallingFrame.hello(participant: "mallory").encoded())
        let link = try await accepted
        socket.write([0, 0, 0, 2, 42, 0])
        #expect(await link.closed == .protocolError(.unknownFrameType(42)))
        await listener.close()
    }

    @Test func aLinkCarriesACallBetweenTwoEngines() async throws {
        let listener = try await listener()
        async let accepted = listener.accept()
        let caller = try await connect(listener.port)
        let callee = try await accepted
        let clock = ManualClock(start: MediaTime.nanosecondsPerSecond)
        // No UDP network: the only real-time path is the link itself.
        let alice = try VoiceEngine(participant: "alice", clock: clock)
        let bob = try VoiceEngine(participant: "bob", clock: clock)
        let events = Mutex<[VoiceChatEvent]>([])
        let aliceService = VoiceChatService(engine: alice, client: callee) { event in
            events.withLock { $0.append(event) }
        }
        let bobService = VoiceChatService(engine: bob, client: caller)
        callee.attach(aliceService)
        caller.attach(bobService)
        let call = try bobService.startVoiceChat(with: "alice")
        #expect(
            await eventually(within: 5, every: .milliseconds(10)) {
                events.withLock { $0.contains(.invitation(call: call, from: "bob")) }
            })
        try aliceService.accept(call)
        let samples = FrameDuration.ms20.engineFrames
        var output = [Float](repeating: 0, count: samples)
        for _ in 0..<300 where !events.withLock({ $0.contains(.started(call: call, with: "bob", path: .appCarried)) }) {
            clock.advance(by: FrameDuration.ms20.nanoseconds)
            output.withUnsafeMutableBufferPointer { alice.tick(at: clock.now, captured: nil, output: $0) }
            output.withUnsafeMutableBufferPointer { bob.tick(at: clock.now, captured: nil, output: $0) }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(events.withLock { $0.contains(.started(call: call, with: "bob", path: .appCarried)) })
        await caller.close()
        await callee.close()
        await listener.close()
    }
}
