import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// Answers the first join with `joined`, then goes silent: a relay that died without a word.
private final class SilentRelayHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard !answered, envelope.data.getInteger(at: envelope.data.readerIndex + 1, as: UInt8.self) == 1,
            let bytes = try? RelayMessage.joined(mediaID: 7).serialized()
        else { return }
        answered = true
        context.writeAndFlush(
            wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: ByteBuffer(bytes: bytes))),
            promise: nil)
    }
}

@Suite(.serialized) struct RelayLivenessTests {
    let harness = RelayHarness()

    @Test func clientNoticesASilentRelayWithinItsLivenessTimeout() async throws {
        let fake = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SilentRelayHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let configuration = RelayClientConfiguration(
            host: "127.0.0.1", port: try #require(fake.localAddress?.port), transport: .udp,
            token: try harness.token("alice"), participant: "alice", channels: [1])
        let peer = try await TestPeer(participant: "alice", configuration: configuration)
        try await peer.waitUntilJoined()
        let joinedAt = ContinuousClock.now
        try await eventually("the client reports the relay lost", within: 3) { peer.receivedEvents.contains(.lost) }
        let detection = ContinuousClock.now - joinedAt
        // The default liveness timeout is 1 s; detection cannot come before it, and must not lag far behind.
        #expect(detection >= .milliseconds(900) && detection < .milliseconds(2500))
        await harness.close(peer)
        try await fake.close()
    }

    @Test func relayForgetsASilentMember() async throws {
        var configuration = harness.configuration()
        configuration.livenessTimeout = .milliseconds(300)
        configuration.housekeepingInterval = .milliseconds(100)
        let relay = RelayServer(configuration: configuration)
        let port = try await relay.start()
        let joined = NIOLockedValueBox(false)
        let socket = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let join = try RelayMessage.join(
            RelayJoin(token: try harness.token("ghost"), participant: "ghost", channels: [1], muted: [])
        ).serialized()
        try await socket.writeAndFlush(
            AddressedEnvelope(
                remoteAddress: try SocketAddress(ipAddress: "127.0.0.1", port: port), data: ByteBuffer(bytes: join)))
        try await eventually("the ghost joins") {
            let participants = try await relay.admin.statistics().participants
            if participants == 1 { joined.withLockedValue { $0 = true } }
            return participants == 1
        }
        #expect(joined.withLockedValue { $0 })
        try await eventually("the silent ghost is dropped", within: 2) {
            try await relay.admin.statistics().participants == 0
        }
        try await socket.close()
        await relay.shutdown()
    }
}
