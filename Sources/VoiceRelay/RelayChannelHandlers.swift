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
    /// Set from the moment the handler is in the pipeline until the connection closes.
    private(set) var connection: RelayConnectionID?

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

/// The relay server's TCP frames: `RelayFraming`'s 2-byte length, read here instead of by NIOExtras'
/// decoder because what a frame may announce depends on the connection: one that has not joined is
/// closed at the first header longer than a join (`RelayState.tcpFrameAnnounced`).
final class RelayServerFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    private let io: RelayIO
    /// The connection's handler, which knows its ID once it is in the pipeline.
    private let handler: RelayTCPHandler
    /// The length of the frame whose header was read and admitted.
    private var admittedLength: Int?

    init(io: RelayIO, handler: RelayTCPHandler) {
        self.io = io
        self.handler = handler
    }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let length: Int
        if let admittedLength {
            length = admittedLength
        } else {
            guard let header = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self) else { return .needMoreData }
            length = Int(header)
            guard let connection = handler.connection, io.frameAnnounced(length: length, on: connection) else {
                buffer.moveReaderIndex(to: buffer.writerIndex)
                context.close(promise: nil)
                return .needMoreData
            }
            admittedLength = length
        }
        guard let frame = buffer.getSlice(at: buffer.readerIndex + 2, length: length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 2 + length)
        admittedLength = nil
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
