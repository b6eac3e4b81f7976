import NIOCore
import NIOPosix

/// Opens a length-framed TCP connection to the relay, as both of its clients (media and signalling)
/// talk to it: no Nagle delay, relay frames decoded and encoded, and what arrives handed to the client.
enum RelayTCPConnection {
    /// - Parameters:
    ///   - received: each frame from the relay, on `loop`.
    ///   - closed: the connection closed (by either side), on `loop`.
    static func open(
        on loop: any EventLoop, to address: SocketAddress, timeout: TimeAmount,
        received: @escaping @Sendable (ByteBuffer, any Channel) -> Void,
        closed: @escaping @Sendable (any Channel) -> Void
    ) -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try RelayFraming.addHandlers(to: operations)
                    try operations.addHandler(FrameHandler(received: received, closed: closed))
                }
            }
            .connect(to: address)
    }
}

/// Feeds a relay connection's frames, and its end, to the client that opened it.
private final class FrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let received: @Sendable (ByteBuffer, any Channel) -> Void
    private let closed: @Sendable (any Channel) -> Void

    init(
        received: @escaping @Sendable (ByteBuffer, any Channel) -> Void,
        closed: @escaping @Sendable (any Channel) -> Void
    ) {
        self.received = received
        self.closed = closed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received(unwrapInboundIn(data), context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a failed read: the connection is of no further use.
        context.close(promise: nil)
    }
}
