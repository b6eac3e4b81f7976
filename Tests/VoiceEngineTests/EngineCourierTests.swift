import Synchronization
import Testing
import VoiceCore
import VoiceTransport
import VoiceWire

@testable import VoiceEngine

/// A signalling message told apart by `number`, and its bytes as a client is sent them.
private func message(_ number: Int) -> SignallingMessage { .end(call: "call-\(number)", reason: .hungUp) }
private func bytes(_ number: Int) -> [UInt8] { message(number).encoded() }

@Suite struct EngineCourierTests {
    /// Records what it is sent; the first message makes it post and deliver two more from inside
    /// `send`, as an app's client that calls straight back into its engine would.
    private final class ReenteringClient: VoiceChatClient {
        let participantID: ParticipantID = "app"
        let received = Mutex<[[UInt8]]>([])
        let courier = Mutex<EngineCourier?>(nil)

        func send(_ data: [UInt8], to participant: ParticipantID) {
            received.withLock { $0.append(data) }
            guard data == bytes(1), let courier = courier.withLock({ $0 }) else { return }
            var outbox = EngineOutbox(datagrams: courier.datagrams)
            outbox.append(.signalling(message(2), to: "peer", client: self))
            outbox.append(.signalling(message(3), to: "peer", client: self))
            #expect(courier.post(&outbox))
            courier.deliver()
        }

        func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {
            received.withLock { $0.append(data) }
        }
    }

    @Test func aClientThatCallsBackFromSendGetsEverythingInOrder() {
        let client = ReenteringClient()
        let courier = EngineCourier(network: nil, slotBytes: 64)
        client.courier.withLock { $0 = courier }
        var outbox = EngineOutbox(datagrams: courier.datagrams)
        #expect(!courier.post(&outbox), "an empty turn queues nothing")
        outbox.append(.signalling(message(1), to: "peer", client: client))
        outbox.append(.signalling(message(4), to: "peer", client: client))
        #expect(courier.post(&outbox))
        courier.deliver()
        // The inner delivery found the outer one at work and left its messages to it.
        #expect(client.received.withLock { $0 } == [1, 4, 2, 3].map(bytes))
    }

    @Test func theThreadDeliversWhatTheEngineThreadQueued() throws {
        let client = ReenteringClient()
        let courier = EngineCourier(network: nil, slotBytes: 64)
        try courier.start()
        var outbox = EngineOutbox(datagrams: courier.datagrams)
        outbox.append(.signalling(message(9), to: "peer", client: client))
        let datagram: [UInt8] = [7, 7]
        #expect(datagram.withUnsafeBytes { outbox.send($0, to: .appCarried("peer", client: client)) })
        #expect(courier.post(&outbox))
        courier.wakeThread()
        // The courier's thread, not this one, delivers both; polled, with a generous deadline.
        let deadline = MediaTime.monotonicNow() + MediaTime.milliseconds(5_000)
        while client.received.withLock({ $0.count }) < 2 && MediaTime.monotonicNow() < deadline {
            MediaTime.sleep(until: MediaTime.monotonicNow() + MediaTime.milliseconds(1))
        }
        // Items and datagrams keep their own order, not one between them: a datagram is the
        // courier's from the moment it is queued, an item from the end of the engine's turn.
        #expect(Set(client.received.withLock { $0 }) == [bytes(9), [7, 7]])
        courier.stop()
    }
}
