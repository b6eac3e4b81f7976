import NIOCore
import VoiceRelayClient
import VoiceWire

/// Feeds the relay's UDP socket into `RelayState`; flushes the forwarded copies once per read batch.
final class RelayUDPHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let state: RelayState

    init(state: RelayState) { self.state = state }

    func handlerAdded(context: ChannelHandlerContext) {
        state.udpContext = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if state.udpContext === context {
            state.udpContext = nil
            state.udpBatch = nil
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The batch sender writes to the channel's descriptor, which is closed (and may be reused) now.
        state.udpBatch = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        state.received(envelope.data, from: .udp(envelope.remoteAddress), now: NIODeadline.now().uptimeNanoseconds)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        state.flushUDP()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port-unreachable from a departed client surfaces here; the socket stays usable.
    }
}

/// Feeds one TCP member connection's frames into `RelayState`.
final class RelayTCPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let state: RelayState

    init(state: RelayState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        state.received(unwrapInboundIn(data), from: .tcp(context.channel), now: NIODeadline.now().uptimeNanoseconds)
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.tcpClosed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
