import NIOCore

/// Feeds the client's UDP socket into its core.
final class RelayClientUDPHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let core: RelayClientCore

    init(core: RelayClientCore) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        core.received(envelope.data, from: .udp(envelope.remoteAddress))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Port unreachable while the relay is down; liveness notices, the socket stays open.
    }
}
