import NIOCore

/// Feeds the relay's UDP socket into `RelayIO`; flushes the forwarded copies once per read batch.
final class RelayUDPHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let io: RelayIO

    init(io: RelayIO) { self.io = io }

    func handlerAdded(context: ChannelHandlerContext) {
        io.udpContext = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if io.udpContext === context {
            io.udpContext = nil
            io.udpBatch = nil
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The batch sender writes to the channel's descriptor, which is closed (and may be reused) now.
        io.udpBatch = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        io.received(envelope.data, from: .udp(envelope.remoteAddress), now: NIODeadline.now().uptimeNanoseconds)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        io.readComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port-unreachable from a departed client surfaces here; the socket stays usable.
    }
}

/// Feeds one TCP member connection's frames into `RelayIO`.
final class RelayTCPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let io: RelayIO
    private var connection: RelayConnectionID?

    init(io: RelayIO) { self.io = io }

    func handlerAdded(context: ChannelHandlerContext) {
        connection = io.connectionOpened(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let connection else { return }
        io.received(unwrapInboundIn(data), from: .tcp(connection), now: NIODeadline.now().uptimeNanoseconds)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if let connection { io.connectionWritabilityChanged(connection, isWritable: context.channel.isWritable) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let connection { io.connectionClosed(connection) }
        connection = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let connection { io.connectionClosed(connection) }
        connection = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
