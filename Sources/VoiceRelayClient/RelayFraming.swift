import NIOCore
import NIOExtras

/// The relay's TCP framing: each datagram after its 2-byte big-endian length, so a connection
/// never buffers more than one frame of at most 65 535 bytes. The client reads it with these
/// handlers; the server with a decoder of its own that also limits connections not yet joined.
package enum RelayFraming {
    /// Adds the decoder and the encoder of relay frames to a TCP channel's pipeline.
    package static func addHandlers(to operations: ChannelPipeline.SynchronousOperations) throws {
        try operations.addHandler(ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .twoBytes)))
        try operations.addHandler(LengthFieldPrepender(lengthFieldBitLength: .twoBytes))
    }
}
