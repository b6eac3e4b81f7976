import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// `relay-serve`: the process under test of `bench/run relay`. Runs either the relay or a bare UDP
/// echo server on 127.0.0.1, prints `port N`, and stops when its standard input closes.
struct RelayServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay-serve", abstract: "The relay (or UDP echo baseline) process that `relay` drives.",
        shouldDisplay: false)

    @Option(help: "relay or echo.") var mode: String = "relay"
    @Option(help: "The shared token secret, hex.") var secret: String = ""

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let port: Int
        var stop: () async -> Void
        if mode == "echo" {
            let channel = try await UDPEchoServer.bind(on: group.next())
            port = channel.localAddress?.port ?? 0
            stop = { try? await channel.close() }
        } else {
            var configuration = RelayConfiguration(
                host: "127.0.0.1", port: 0, secret: try RelaySecret(bytes: hexBytes(secret)))
            configuration.limits.maximumParticipants = 100_000
            let relay = RelayServer(configuration: configuration, eventLoopGroup: group)
            port = try await relay.start()
            stop = { await relay.shutdown() }
        }
        FileHandle.standardOutput.write(Data("port \(port)\n".utf8))
        // The parent closes our standard input to stop us (and we stop if it dies).
        while let line = readLine(strippingNewline: true), line != "stop" {}
        await stop()
        try await group.shutdownGracefully()
    }
}

func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
        if let byte = UInt8(text[index..<next], radix: 16) { bytes.append(byte) }
        index = next
    }
    return bytes
}

/// The baseline: a bare NIO UDP echo server with the relay's socket options, nothing else.
final class UDPEchoServer: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}

    static func bind(on loop: any EventLoop) async throws -> any Channel {
        try await DatagramBootstrap(group: loop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelOption(.socketOption(.so_sndbuf), value: 4 << 20)
            .channelOption(.datagramVectorReadMessageCount, value: 64)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 64 * 2048))
            .channelOption(.writeBufferWaterMark, value: .init(low: 1 << 20, high: 4 << 20))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(UDPEchoServer())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }
}
