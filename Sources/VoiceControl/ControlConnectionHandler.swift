import NIOCore
import VoiceWire

/// One client of the control socket: reads request lines, answers each, and pushes snapshots
/// while subscribed. Lives on its channel's event loop.
final class ControlConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let dispatcher: ControlDispatcher
    private let connections: ControlConnections
    private var framer: LineFramer
    private var subscription: RepeatedTask?

    init(dispatcher: ControlDispatcher, connections: ControlConnections, maximumLineBytes: Int) {
        self.dispatcher = dispatcher
        self.connections = connections
        framer = LineFramer(maximumBytes: maximumLineBytes)
    }

    func channelActive(context: ChannelHandlerContext) {
        connections.add(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopSubscription()
        connections.remove(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopSubscription()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        for piece in framer.append(buffer.readableBytesView) {
            switch piece {
            case .overlong:
                let error = ControlError.badRequest(
                    "the line is longer than \(framer.maximumBytes) bytes and was discarded; send one request per line")
                write(JSONLines.line(ControlReply.failure(id: nil, error)), context: context)
            case .line(let line):
                guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { continue }
                let (reply, change) = dispatcher.handle(line)
                write(JSONLines.line(reply), context: context)
                switch change {
                case .subscribe(let interval): startSubscription(every: interval, channel: context.channel)
                case .unsubscribe: stopSubscription()
                case nil: break
                }
            }
        }
        context.flush()
    }

    /// A client that sends without reading its replies is not read from until it catches up.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.channel.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenComplete { _ in }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func write(_ line: String, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(context.channel.allocator.buffer(string: line)), promise: nil)
    }

    private func startSubscription(every milliseconds: Int, channel: any Channel) {
        stopSubscription()
        let control = dispatcher.control
        subscription = channel.eventLoop.scheduleRepeatedTask(
            initialDelay: .zero, delay: .milliseconds(Int64(milliseconds))
        ) { _ in
            // A push that finds the client's buffer full is dropped, not queued.
            guard channel.isActive, channel.isWritable else { return }
            let line = JSONLines.line(ControlPush(snapshot: control.snapshot()))
            channel.writeAndFlush(channel.allocator.buffer(string: line), promise: nil)
        }
    }

    private func stopSubscription() {
        subscription?.cancel()
        subscription = nil
    }
}
