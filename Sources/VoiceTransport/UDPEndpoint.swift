import NIOCore
import NIOPosix
import Synchronization

/// A bound UDP socket on SwiftNIO.
///
/// Thread contract: datagrams are handed to `onDatagram` on the socket's NIO event loop thread, one
/// at a time, in arrival order; the callback must not block (copy out and return). `send` and
/// `close` may be called from any thread: NIO hands writes over to the event loop, so `send` never
/// blocks the caller. Every stored property is immutable or atomic, hence `Sendable`.
public final class UDPEndpoint: Sendable {
    /// The port the socket is bound to (the one the system chose when 0 was asked for).
    public let localPort: Int
    /// The socket's address family: it can only send to addresses of this family.
    public let family: PeerAddress.Family
    private let channel: any Channel
    private let counters: DatagramErrorCounters

    private init(channel: any Channel, family: PeerAddress.Family, localPort: Int, counters: DatagramErrorCounters) {
        self.channel = channel
        self.family = family
        self.localPort = localPort
        self.counters = counters
    }

    /// Opens a UDP socket on `host` (a numeric address; "0.0.0.0" or "::" for every interface) and
    /// `port` (0 for any free one), on the process-wide NIO event loop group.
    public static func bind(
        host: String = "0.0.0.0", port: Int = 0,
        onDatagram: @escaping @Sendable ([UInt8], PeerAddress) -> Void
    ) async throws(TransportError) -> UDPEndpoint {
        let local = try PeerAddress(host: host, port: port, allowingAnyPort: true)
        let counters = DatagramErrorCounters()
        let channel: any Channel
        do {
            // No SO_REUSEADDR: on Linux it would let a second socket bind the same UDP port and
            // silently take part of this one's datagrams.
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            DatagramHandler(onDatagram: onDatagram, counters: counters))
                    }
                }
                .bind(host: local.host, port: port)
                .get()
        } catch {
            throw .bindFailed(host: local.host, port: port, reason: "\(error)")
        }
        guard let boundPort = channel.localAddress?.port else {
            try? await channel.close()
            throw .bindFailed(host: local.host, port: port, reason: "the socket reports no local port")
        }
        return UDPEndpoint(
            channel: channel, family: local.family, localPort: boundPort, counters: counters)
    }

    /// Queues `datagram` for `address` and returns at once. A datagram that cannot be sent (socket
    /// closed, unreachable network, full buffer) is dropped and counted in `sendErrorCount`:
    /// real-time data is never worth retrying.
    public func send(_ datagram: some Collection<UInt8>, to address: PeerAddress) {
        // A write to another family fails with an error that makes NIO close the socket, which
        // would end the direct path to every peer; a peer's candidate of the other family is
        // simply unreachable from here.
        guard address.family == family else {
            counters.sendErrors.add(1, ordering: .relaxed)
            return
        }
        let buffer = channel.allocator.buffer(bytes: datagram)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenFailure { [counters] _ in counters.sendErrors.add(1, ordering: .relaxed) }
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address.socketAddress, data: buffer), promise: promise)
    }

    /// Datagrams dropped because the socket refused them.
    public var sendErrorCount: Int { counters.sendErrors.load(ordering: .relaxed) }
    /// Errors the socket reported while receiving (the socket stays open).
    public var receiveErrorCount: Int { counters.receiveErrors.load(ordering: .relaxed) }

    /// Closes the socket; no datagram is delivered once this returns. Closing twice is harmless.
    public func close() async {
        try? await channel.close()
    }
}
