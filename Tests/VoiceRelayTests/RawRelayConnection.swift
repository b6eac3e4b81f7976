import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// A bare TCP connection to a relay that sends exactly what a test gives it (framed as 2-byte
/// length + bytes) and records every relay message it gets back: for what a well-behaved client
/// never sends.
final class RawRelayConnection: Sendable {
    private let channel: any Channel
    private let received: NIOLockedValueBox<[RelayMessage]>

    init(port: Int) async throws {
        let received = NIOLockedValueBox<[RelayMessage]>([])
        self.received = received
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(ByteToMessageHandler(LengthFrameDecoder()))
                    try operations.addHandler(RecordingHandler(received: received))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }

    var messages: [RelayMessage] { received.withLockedValue { $0 } }

    func send(_ message: RelayMessage) async throws { try await send(bytes: try message.serialized()) }

    func send(bytes: [UInt8]) async throws {
        var buffer = channel.allocator.buffer(capacity: bytes.count + 2)
        buffer.writeInteger(UInt16(bytes.count))
        buffer.writeBytes(bytes)
        try await channel.writeAndFlush(buffer)
    }

    /// Sends `bytes` as they are, without a frame around them.
    func send(unframed bytes: [UInt8]) async throws {
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        try await channel.writeAndFlush(buffer)
    }

    /// Whether the relay closed the connection (or the test did).
    var isClosed: Bool { !channel.isActive }

    func close() async { try? await channel.close() }
}

private struct LengthFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self),
            buffer.readableBytes >= 2 + Int(length)
        else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 2)
        context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: Int(length))!))
        return .continue
    }
}

private final class RecordingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let received: NIOLockedValueBox<[RelayMessage]>

    init(received: NIOLockedValueBox<[RelayMessage]>) { self.received = received }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        if let message = try? RelayMessage(parsing: bytes) { received.withLockedValue { $0.append(message) } }
    }
}
