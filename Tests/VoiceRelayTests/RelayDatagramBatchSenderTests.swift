import NIOCore
import Testing

@testable import VoiceRelay
@testable import VoiceRelayClient
@testable import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct RelayDatagramBatchSenderTests {
    @Test func everyQueuedCopyGoesOutInOneSystemCall() throws {
        let socket = try LoopbackDatagramSocket()
        let receivers = try (0..<3).map { _ in try LoopbackDatagramSocket() }
        let sender = try #require(RelayDatagramBatchSender(descriptor: socket.descriptor))

        let staged = try #require(sender.stage(ByteBuffer(bytes: [1, 2, 3, 4])))
        for receiver in receivers { sender.append(staged, to: try receiver.destination()) }
        sender.flush()

        #expect(sender.systemCalls == 1)
        for receiver in receivers { #expect(receiver.receive() == [1, 2, 3, 4]) }
    }

    @Test func aRefusedDestinationDoesNotLoseTheCopiesAfterIt() throws {
        let socket = try LoopbackDatagramSocket()
        let first = try LoopbackDatagramSocket()
        let last = try LoopbackDatagramSocket()
        let sender = try #require(RelayDatagramBatchSender(descriptor: socket.descriptor))
        // The kernel refuses UDP to port 0 (EINVAL), as it would refuse any address it cannot send to.
        let refused = try #require(RelayDatagramDestination(try SocketAddress(ipAddress: "127.0.0.1", port: 0)))

        let staged = try #require(sender.stage(ByteBuffer(bytes: [9, 8, 7])))
        sender.append(staged, to: try first.destination())
        sender.append(staged, to: refused)
        sender.append(staged, to: try last.destination())
        sender.flush()

        #expect(sender.refusedMessages == 1)
        #expect(first.receive() == [9, 8, 7])
        #expect(last.receive() == [9, 8, 7])
    }

    @Test func moreCopiesThanOneCallTakesGoOutInSeveralAndPayloadsStayApart() throws {
        let socket = try LoopbackDatagramSocket()
        let receiver = try LoopbackDatagramSocket()
        let destination = try receiver.destination()
        let sender = try #require(RelayDatagramBatchSender(descriptor: socket.descriptor, capacity: 2))

        for value in UInt8(1)...5 {
            let staged = try #require(sender.stage(ByteBuffer(bytes: [value, value])))
            sender.append(staged, to: destination)
        }
        sender.flush()

        #expect(sender.systemCalls == 3)
        #expect((0..<5).map { _ in receiver.receive() } == (UInt8(1)...5).map { [$0, $0] })
    }

    @Test func whatWouldBlockGoesToTheOverflowWithItsPayloadAndAddress() throws {
        var calls = 0
        // The kernel takes the first message, then its send buffer is full.
        let sender = try #require(
            RelayDatagramBatchSender(descriptor: -1) { _, _, count in
                calls += 1
                return calls == 1 ? (1, 0) : (-1, EAGAIN)
            })
        var overflowed: [([UInt8], SocketAddress)] = []
        sender.overflow = { payload, address in overflowed.append((Array(payload.readableBytesView), address)) }
        let addresses = try (1...3).map { try SocketAddress(ipAddress: "127.0.0.1", port: 40_000 + $0) }

        let staged = try #require(sender.stage(ByteBuffer(bytes: [5, 6])))
        for address in addresses { sender.append(staged, to: try #require(RelayDatagramDestination(address))) }
        sender.flush()

        #expect(calls == 2)
        #expect(sender.refusedMessages == 0)
        #expect(overflowed.map(\.0) == [[5, 6], [5, 6]])
        #expect(overflowed.map(\.1) == Array(addresses[1...]))
    }

    @Test func aPayloadLargerThanTheArenaIsNotStaged() throws {
        let sender = try #require(
            RelayDatagramBatchSender(descriptor: -1, arenaBytes: 8) { _, _, count in (Int(count), 0) })
        #expect(sender.stage(ByteBuffer(bytes: [UInt8](repeating: 0, count: 9))) == nil)
        #expect(sender.stage(ByteBuffer(bytes: [UInt8](repeating: 0, count: 8))) != nil)
    }

    @Test func unixDomainAddressesHaveNoDatagramDestination() throws {
        #expect(RelayDatagramDestination(try SocketAddress(unixDomainSocketPath: "/tmp/relay-test.sock")) == nil)
        #expect(RelayDatagramDestination(try SocketAddress(ipAddress: "::1", port: 9)) != nil)
    }

    @Test func anAddressNotOnThisMachineIsAClearError() {
        let error = #expect(throws: RelayDatagramSocket.OpenError.self) {
            try RelayDatagramSocket.open(host: "192.0.2.1", port: 0)
        }
        #expect(error?.description.contains("address") == true)
    }
}

/// A plain UDP socket on 127.0.0.1 with a receive timeout, closed when the test drops it.
private final class LoopbackDatagramSocket {
    let descriptor: CInt

    init() throws {
        descriptor = try RelayDatagramSocket.open(host: "127.0.0.1", port: 0)
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func destination() throws -> RelayDatagramDestination {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return try #require(RelayDatagramDestination(SocketAddress(address, host: "127.0.0.1")))
    }

    /// The next datagram, or nil after the timeout.
    func receive() -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 2048)
        let count = recv(descriptor, &bytes, bytes.count, 0)
        return count < 0 ? nil : Array(bytes[..<count])
    }
}
