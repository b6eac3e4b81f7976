import Synchronization
import Testing
import VoiceCore

@testable import VoiceIO

@Suite("UDPEndpoint and CandidateGathering on loopback")
struct UDPEndpointTests {
    /// Datagrams received by one endpoint, for the test thread to wait on.
    final class Inbox: Sendable {
        let received = Mutex<[([UInt8], PeerAddress)]>([])

        func append(_ datagram: [UInt8], from source: PeerAddress) {
            received.withLock { $0.append((datagram, source)) }
        }

        /// Waits (up to 5 s) until `count` datagrams arrived.
        func wait(for count: Int) async throws -> [([UInt8], PeerAddress)] {
            for _ in 0..<500 {
                let snapshot = received.withLock { $0 }
                if snapshot.count >= count { return snapshot }
                try await Task.sleep(for: .milliseconds(10))
            }
            return received.withLock { $0 }
        }
    }

    @Test func twoEndpointsExchangeDatagrams() async throws {
        let inboxA = Inbox()
        let inboxB = Inbox()
        let a = try await UDPEndpoint.bind(host: "127.0.0.1") { inboxA.append($0, from: $1) }
        let b = try await UDPEndpoint.bind(host: "127.0.0.1") { inboxB.append($0, from: $1) }
        #expect(a.localPort != 0 && b.localPort != 0 && a.localPort != b.localPort)
        let addressA = try PeerAddress(host: "127.0.0.1", port: a.localPort)
        let addressB = try PeerAddress(host: "127.0.0.1", port: b.localPort)
        for index in 0..<5 { a.send([1, 2, UInt8(index)], to: addressB) }
        let atB = try await inboxB.wait(for: 5)
        #expect(atB.map(\.0) == (0..<5).map { [1, 2, UInt8($0)] })
        #expect(atB.allSatisfy { $0.1 == addressA })
        b.send(Array(repeating: 9, count: 1200), to: addressA)
        let atA = try await inboxA.wait(for: 1)
        #expect(atA.first?.0.count == 1200)
        #expect(atA.first?.1 == addressB)
        #expect(a.sendErrorCount == 0)
        await a.close()
        await b.close()
        await a.close()
    }

    /// NIO closes a datagram socket whose send fails with an error it does not recover from
    /// (ENETUNREACH while the network is down); the endpoint binds it again on the same port, so
    /// peers that know the address reach it again, and it sends again.
    @Test func aSocketAnErrorClosedIsBoundAgainOnItsPort() async throws {
        let inboxA = Inbox()
        let inboxB = Inbox()
        let a = try await UDPEndpoint.bind(host: "127.0.0.1") { inboxA.append($0, from: $1) }
        let b = try await UDPEndpoint.bind(host: "127.0.0.1") { inboxB.append($0, from: $1) }
        let addressA = try PeerAddress(host: "127.0.0.1", port: a.localPort)
        let addressB = try PeerAddress(host: "127.0.0.1", port: b.localPort)

        await a.closeAsAnErrorWould()
        let deadline = ContinuousClock.now + .seconds(5)
        while a.reopenCount == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(a.reopenCount == 1)
        b.send([7], to: addressA)
        #expect(try await inboxA.wait(for: 1).map(\.0) == [[7]])
        a.send([8], to: addressB)
        #expect(try await inboxB.wait(for: 1).map(\.0) == [[8]])

        // Closed on purpose, it stays closed: the port is free for another socket at once.
        await a.close()
        let successor = try await UDPEndpoint.bind(host: "127.0.0.1", port: a.localPort) { _, _ in }
        #expect(successor.localPort == a.localPort)
        #expect(a.reopenCount == 1)
        await successor.close()
        await b.close()
    }

    @Test func sendingAfterCloseIsCountedNotFatal() async throws {
        let endpoint = try await UDPEndpoint.bind(host: "127.0.0.1") { _, _ in }
        let target = try PeerAddress(host: "127.0.0.1", port: endpoint.localPort)
        await endpoint.close()
        endpoint.send([1], to: target)
        for _ in 0..<200 where endpoint.sendErrorCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(endpoint.sendErrorCount == 1)
    }

    @Test func anAddressOfTheOtherFamilyIsCountedAndTheSocketKeepsWorking() async throws {
        let inbox = Inbox()
        let a = try await UDPEndpoint.bind(host: "0.0.0.0") { _, _ in }
        let b = try await UDPEndpoint.bind(host: "127.0.0.1") { inbox.append($0, from: $1) }
        #expect(a.family == .ipv4)
        a.send([6], to: try PeerAddress(host: "::1", port: b.localPort))
        a.send([4], to: try PeerAddress(host: "127.0.0.1", port: b.localPort))
        let received = try await inbox.wait(for: 1)
        #expect(received.map(\.0) == [[4]])
        #expect(a.sendErrorCount == 1)
        await a.close()
        await b.close()
    }

    @Test func bindingATakenPortFailsWithAClearError() async throws {
        let first = try await UDPEndpoint.bind(host: "127.0.0.1") { _, _ in }
        await #expect(throws: TransportError.self) {
            _ = try await UDPEndpoint.bind(host: "127.0.0.1", port: first.localPort) { _, _ in }
        }
        do {
            _ = try await UDPEndpoint.bind(host: "127.0.0.1", port: first.localPort) { _, _ in }
            Issue.record("a second socket bound a port already taken")
        } catch {
            #expect(error.description.contains("port \(first.localPort)"))
        }
        await first.close()
        await #expect(throws: TransportError.self) {
            _ = try await UDPEndpoint.bind(host: "not-an-address") { _, _ in }
        }
        await #expect(throws: TransportError.invalidPort(70000)) {
            _ = try await UDPEndpoint.bind(host: "127.0.0.1", port: 70000) { _, _ in }
        }
    }

    @Test func candidatesIncludeLoopbackOnlyWhenAsked() {
        let with = CandidateGathering.localCandidates(port: 4000, includeLoopback: true)
        let without = CandidateGathering.localCandidates(port: 4000, includeLoopback: false)
        #expect(with.contains { $0.host == "127.0.0.1" && $0.port == 4000 })
        #expect(!without.contains { $0.isLoopback })
        #expect(without.allSatisfy { !$0.isLinkLocal })
        #expect(Set(without).isSubset(of: Set(with)))
        // Loopback comes last: it is the candidate least likely to reach a peer.
        if let firstLoopback = with.firstIndex(where: \.isLoopback) {
            #expect(with[firstLoopback...].allSatisfy { $0.isLoopback })
        }
    }
}
