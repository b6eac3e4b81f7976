import Foundation
import NIOCore
import Synchronization
import Testing
import VoiceCore
import VoiceIO
import VoiceTestSupport
import VoiceWire

/// `voicechat listen`'s listener against callers that never say who they are: held to a hello
/// deadline, a first frame no longer than a hello, and per-address limits, each refusal counted and
/// said. Real sockets on loopback and deadlines: paced suite.
@Suite struct SignallingListenerLimitsTests {
    private final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        func contains(_ text: String) -> Bool { lines.withLock { $0.contains { $0.contains(text) } } }
    }

    /// Whether `count` of `clients` are closed by the server within 2 s.
    private func closed(_ clients: [RawClient], count: Int) async -> Bool {
        var closed = Set<Int>()
        return await eventually(within: 2, every: .milliseconds(20)) {
            for (index, client) in clients.enumerated() where !closed.contains(index) {
                if client.secondsUntilClosed(within: 0) != nil { closed.insert(index) }
            }
            return closed.count >= count
        }
    }

    private func listener(_ limits: TCPSignallingListener.Limits, log: Log) async throws -> TCPSignallingListener {
        try await TCPSignallingListener.bind(
            host: "127.0.0.1", port: 0, participant: "alice", limits: limits, log: { log.append($0) })
    }

    /// A caller named `participant` is answered by `listener`; the call is then closed.
    private func expectAnswered(
        by listener: TCPSignallingListener, participant: ParticipantID, timeout: Duration
    ) async throws {
        async let accepted = listener.accept()
        let caller = try await TCPSignallingLink.connect(
            host: "127.0.0.1", port: listener.port, participant: participant, timeout: timeout)
        let callee = try await accepted
        #expect(callee.remoteParticipant == participant)
        await caller.close()
        await callee.close()
    }

    @Test func aCallerWithoutAHelloIsClosedAtTheDeadlineAndCounted() async throws {
        var limits = TCPSignallingListener.Limits()
        limits.helloDeadline = .milliseconds(300)
        let log = Log()
        let listener = try await listener(limits, log: log)
        let idle = try RawClient(port: listener.port)
        defer { idle.close() }
        let closedAfter = try #require(idle.secondsUntilClosed(within: 5), "still open 5 s after a 0.3 s deadline")
        #expect(closedAfter >= 0.25 && closedAfter < 2, "closed after \(closedAfter) s")
        #expect(listener.refusals.helloTimeouts == 1)
        #expect(log.contains("refused a caller from 127.0.0.1: no hello within 0.3 s (hello_timeout)"))
        await listener.close()
    }

    @Test func aFirstFrameLongerThanAHelloIsClosedAtItsHeader() async throws {
        let log = Log()
        let listener = try await listener(TCPSignallingListener.Limits(), log: log)
        let client = try RawClient(port: listener.port)
        defer { client.close() }
        // A header announcing 64 KB, and nothing after it: closed at once, not at the 5 s deadline.
        client.write([0, 1, 0, 0])
        let closedAfter = try #require(client.secondsUntilClosed(within: 3), "a 64 KB header was held")
        #expect(closedAfter < 1)
        #expect(listener.refusals.firstFrameTooLarge == 1)
        #expect(log.contains("a first frame of 65536 bytes, longer than any hello (first_frame_too_large)"))

        // A caller with the longest name still gets through.
        let name = String(repeating: "b", count: SignallingFrame.maximumParticipantBytes)
        try await expectAnswered(by: listener, participant: ParticipantID(name), timeout: .seconds(5))
        await listener.close()
    }

    @Test func oneAddressHoldsOnlySoManyConnectionsWithoutAHello() async throws {
        var limits = TCPSignallingListener.Limits()
        limits.maximumUnjoinedConnectionsPerAddress = 3
        limits.connectionBurst = 100
        let log = Log()
        let listener = try await listener(limits, log: log)
        // Five at once: whichever three the listener counts first are held (its event loops take
        // them in parallel), the other two are closed as they open.
        let clients = try (0..<5).map { _ in try RawClient(port: listener.port) }
        #expect(await closed(clients, count: 2), "connections past the cap stayed open")
        #expect(listener.refusals.addressConnectionLimit == 2)
        for client in clients { client.close() }

        // With the held ones gone (the listener hears of it within a moment), a caller is answered.
        try await Task.sleep(for: .milliseconds(200))
        try await expectAnswered(by: listener, participant: "bob", timeout: .seconds(1))
        // Said once a second at most, with the count: the next connection after a second says it.
        try await Task.sleep(for: .milliseconds(1100))
        let after = try RawClient(port: listener.port)
        after.close()
        #expect(
            await eventually(within: 2, every: .milliseconds(20)) {
                log.contains("refused connections from 127.0.0.1: 2 while it held 3 without a hello")
            })
        await listener.close()
    }

    @Test func oneAddressOpensOnlySoManyConnectionsASecond() async throws {
        var limits = TCPSignallingListener.Limits()
        limits.connectionsPerSecondPerAddress = 1
        limits.connectionBurst = 2
        let log = Log()
        let listener = try await listener(limits, log: log)
        let clients = try (0..<4).map { _ in try RawClient(port: listener.port) }
        defer { for client in clients { client.close() } }
        // Two fit the burst; two more come faster than one a second and are closed as they open.
        #expect(await closed(clients, count: 2), "connections over the rate stayed open")
        #expect(listener.refusals.connectionRateLimited == 2)
        #expect(listener.refusals.addressConnectionLimit == 0)
        await listener.close()
    }
}
