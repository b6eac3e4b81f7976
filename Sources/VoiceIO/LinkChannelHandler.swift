import NIOCore
import VoiceWire

/// Decodes the TCP stream of one link into frames and reports them, and the connection's end, to its
/// `LinkConnection`. Lives on the connection's event loop, like every NIO handler.
final class LinkChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: LinkConnection
    private var decoder = SignallingFrameDecoder()
    /// Until the peer's hello, frames longer than this close the connection at their length field
    /// (a listener's callers: nothing but a hello may come first); nil for no lower limit.
    private var firstFrameLimit: Int?

    init(connection: LinkConnection, firstFrameLimit: Int? = nil) {
        self.connection = connection
        self.firstFrameLimit = firstFrameLimit
        if let firstFrameLimit { decoder.maximumLength = firstFrameLimit }
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
                if firstFrameLimit != nil, connection.hasSaidHello {
                    firstFrameLimit = nil
                    decoder.maximumLength = SignallingFrame.maximumLength + 1
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
