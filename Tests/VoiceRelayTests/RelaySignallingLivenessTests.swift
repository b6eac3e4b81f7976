import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// Answers the first signalling join with an empty roster, then goes silent: a relay that hangs
/// without closing the connection.
private final class SilentSignallingRelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let connections: NIOLockedValueBox<Int>

    init(connections: NIOLockedValueBox<Int>) { self.connections = connections }

    func channelActive(context: ChannelHandlerContext) {
        connections.withLockedValue { $0 += 1 }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        // One frame per read is enough here: the join is the first thing the client sends.
        guard let length = buffer.readInteger(as: UInt16.self), let bytes = buffer.readBytes(length: Int(length)),
            case .signalJoin = try? RelayMessage(parsing: bytes),
            let answer = try? RelayMessage.signalJoined(members: []).serialized()
        else { return }
        var out = context.channel.allocator.buffer(capacity: answer.count + 2)
        out.writeInteger(UInt16(answer.count))
        out.writeBytes(answer)
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }
}

@Suite(.serialized) struct RelaySignallingLivenessTests {
    let harness = RelayHarness()

    @Test func relayDropsASilentSignallingMemberAndTellsTheOthers() async throws {
        var configuration = harness.configuration()
        configuration.livenessTimeout = .milliseconds(300)
        configuration.housekeepingInterval = .milliseconds(100)
        let relay = RelayServer(configuration: configuration)
        let port = try await relay.start()
        let alice = try await harness.attach("alice", relay: relay)
        try await alice.waitUntilJoined()
        let ghost = try await RawRelayConnection(port: port)
        try await ghost.send(.signalJoin(token: try harness.token("ghost"), participant: "ghost"))
        try await eventually("alice hears of the ghost") { alice.client.members == ["ghost"] }
        // Alice keeps answering (keepalives every 250 ms); the ghost says nothing more.
        try await eventually("the silent ghost is dropped and alice told", within: 3) {
            alice.receivedEvents.last == .memberLeft("ghost")
        }
        #expect(try await relay.admin.signallingMembers(match: RelayHarness.match) == ["alice"])
        #expect(alice.client.state == .joined)
        await ghost.close()
        await harness.close(alice)
        await relay.shutdown()
    }

    @Test func clientNoticesASilentRelayAndReconnects() async throws {
        let connections = NIOLockedValueBox(0)
        let fake = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        SilentSignallingRelayHandler(connections: connections))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        var timing = SignallingPeer.fastTiming
        timing.livenessTimeout = .seconds(1)
        let alice = try await SignallingPeer(
            participant: "alice", port: try #require(fake.localAddress?.port), token: try harness.token("alice"),
            timing: timing)
        try await alice.waitUntilJoined()
        let joinedAt = ContinuousClock.now
        try await eventually("the client reports the relay lost", within: 4) { alice.receivedEvents.contains(.lost) }
        let detection = ContinuousClock.now - joinedAt
        #expect(detection >= .milliseconds(900) && detection < .milliseconds(3000))
        try await eventually("the client connects again", within: 4) { connections.withLockedValue { $0 } >= 2 }
        await harness.close(alice)
        try await fake.close()
    }
}
