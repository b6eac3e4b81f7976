import NIOCore
import VoiceWire

/// One client of a socket whose requests are answered by an async function (`ControlServer.start(
/// path:answer:)`): replies go out in the order the requests came, each as soon as it and those
/// before it are answered. Lives on its channel's event loop.
final class AnsweringConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: @Sendable ([UInt8]) async -> String
    private let connections: ControlConnections
    private var framer: LineFramer
    /// Completes when every reply so far has been written.
    private var written: EventLoopFuture<Void>?

    init(answer: @escaping @Sendable ([UInt8]) async -> String, connections: ControlConnections, maximumLineBytes: Int)
    {
        self.answer = answer
        self.connections = connections
        framer = LineFramer(maximumBytes: maximumLineBytes)
    }

    func channelActive(context: ChannelHandlerContext) {
        connections.add(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        for piece in framer.append(buffer.readableBytesView) {
            let reply: EventLoopFuture<String>
            switch piece {
            case .overlong:
                let error = ControlError.badRequest(
                    "the line is longer than \(framer.maximumBytes) bytes and was discarded; send one request per line")
                reply = context.eventLoop.makeSucceededFuture(JSONLines.line(ControlReply.failure(id: nil, error)))
            case .line(let line):
                guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { continue }
                let answer = self.answer
                reply = context.eventLoop.makeFutureWithTask { await answer(line) }
            }
            let channel = context.channel
            let before = written ?? context.eventLoop.makeSucceededVoidFuture()
            written = before.and(reply).map { _, text in
                channel.writeAndFlush(channel.allocator.buffer(string: text), promise: nil)
            }
        }
    }

    /// A client that sends without reading its replies is not read from until it catches up.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.channel.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenComplete { _ in }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
