import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus

/// Answers `GET /metrics` with the registry's Prometheus text exposition; everything else gets 404.
final class PrometheusEndpointHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry
    private var path: String?

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): path = head.method == .GET ? head.uri : nil
        case .body: break
        case .end:
            let found = path == "/metrics"
            var body = context.channel.allocator.buffer(capacity: 4096)
            if found { body.writeBytes(registry.emitToBuffer()) } else { body.writeString("not found; try /metrics\n") }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4" : "text/plain")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            let head = HTTPResponseHead(version: .http1_1, status: found ? .ok : .notFound, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            path = nil
        }
    }
}

enum PrometheusEndpoint {
    static func bind(host: String, port: Int, registry: PrometheusCollectorRegistry, on loop: any EventLoop)
        async throws -> Channel
    {
        try await ServerBootstrap(group: loop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(PrometheusEndpointHandler(registry: registry))
                }
            }
            .bind(host: host, port: port).get()
    }
}
