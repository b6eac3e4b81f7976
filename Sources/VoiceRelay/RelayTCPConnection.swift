import NIOCore
import NIOPosix

/// Opens a length-framed TCP connection to the relay, as both of its clients (media and signalling)
/// talk to it: no Nagle delay, relay frames decoded and encoded, and the client's own handler last.
enum RelayTCPConnection {
    /// - Parameter handler: makes the client's handler; called on `loop`, inside the channel's set-up.
    static func open(
        on loop: any EventLoop, to address: SocketAddress, timeout: TimeAmount,
        handler: @escaping @Sendable () -> any ChannelHandler
    ) -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(ByteToMessageHandler(RelayFrameDecoder()))
                    try operations.addHandler(MessageToByteHandler(RelayFrameEncoder()))
                    try operations.addHandler(handler())
                }
            }
            .connect(to: address)
    }
}
