import NIOCore

/// Decodes the TCP stream of one link into frames and reports them, and the connection's end, to its
/// `LinkConnection`. Lives on the connection's event loop, like every NIO handler.
final class LinkChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: LinkConnection
    private var decoder = SignallingFrameDecoder()

    init(connection: LinkConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        decoder.append(buffer.readableBytesView)
        do {
            while let frame = try decoder.next() {
                guard connection.received(frame) else {
                    context.close(promise: nil)
                    return
                }
            }
        } catch {
            connection.end(.protocolError(error))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        do {
            try decoder.finish()
            connection.end(.connectionLost)
        } catch {
            connection.end(.protocolError(error))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a failed read: the connection is of no further use.
        context.close(promise: nil)
    }
}
