import NIOCore
import VoiceWire

/// Splits a TCP byte stream into datagrams framed as a 2-byte big-endian length + datagram.
///
/// A frame is at most 65 535 bytes, so a connection never buffers more than one frame's worth.
package struct RelayFrameDecoder: ByteToMessageDecoder {
    package typealias InboundOut = ByteBuffer

    package init() {}

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self),
            buffer.readableBytes >= 2 + Int(length)
        else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 2)
        guard let frame = buffer.readSlice(length: Int(length)) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    package mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        try decode(context: context, buffer: &buffer)
    }
}

/// Prefixes each outbound datagram with its 2-byte big-endian length.
package final class RelayFrameEncoder: MessageToByteEncoder {
    package typealias OutboundIn = ByteBuffer

    package init() {}

    package func encode(data: ByteBuffer, out: inout ByteBuffer) throws {
        out.writeInteger(UInt16(truncatingIfNeeded: data.readableBytes))
        out.writeImmutableBuffer(data)
    }
}
