import NIOCore
import NIOPosix
import Synchronization
import VoiceCore

/// A bound UDP socket on SwiftNIO.
///
/// **Reopened when an error closes it.** NIO closes a datagram socket whose `sendto` fails with
/// an error it does not take as recoverable, such as ENETUNREACH while the host's network is down.
/// Left closed, every direct path through it would be gone for the rest of the session, though
/// the network comes back in seconds. So a socket closed by anything but `close()` is bound again
/// on the same port (peers know this address), at once and then every `reopenRetry` until it
/// works; datagrams sent meanwhile are dropped and counted like any other that could not be sent.
///
/// Thread contract: datagrams are handed to `onDatagram` on the socket's NIO event loop thread, one
/// at a time, in arrival order; the callback must not block (copy out and return). `send` and
/// `close` may be called from any thread: NIO hands writes over to the event loop, so `send` never
/// blocks the caller. The current socket sits behind a mutex held only to read or swap it.
public final class UDPEndpoint: Sendable {
    /// The port the socket is bound to (the one the system chose when 0 was asked for).
    public let localPort: Int
    /// The socket's address family: it can only send to addresses of this family.
    public let family: PeerAddress.Family
    private let host: String
    private let channel: Mutex<any Channel>
    private let closing = Atomic<Bool>(false)
    private let counters: DatagramErrorCounters
    private let onDatagram: @Sendable ([UInt8], PeerAddress) -> Void

    /// How long a failed reopening waits before it tries again.
    static let reopenRetry = TimeAmount.milliseconds(200)

    private init(
        channel: any Channel, host: String, family: PeerAddress.Family, localPort: Int,
        counters: DatagramErrorCounters, onDatagram: @escaping @Sendable ([UInt8], PeerAddress) -> Void
    ) {
        self.channel = Mutex(channel)
        self.host = host
        self.family = family
        self.localPort = localPort
        self.counters = counters
        self.onDatagram = onDatagram
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
            channel = try await openChannel(host: local.host, port: port, counters: counters, onDatagram: onDatagram)
                .get()
        } catch {
            throw .bindFailed(host: local.host, port: port, reason: "\(error)", errno: (error as? IOError)?.errnoCode)
        }
        guard let boundPort = channel.localAddress?.port else {
            try? await channel.close()
            throw .bindFailed(host: local.host, port: port, reason: "the socket reports no local port")
        }
        let endpoint = UDPEndpoint(
            channel: channel, host: local.host, family: local.family, localPort: boundPort, counters: counters,
            onDatagram: onDatagram)
        endpoint.reopenWhenClosed(channel)
        return endpoint
    }

    private static func openChannel(
        host: String, port: Int, counters: DatagramErrorCounters,
        onDatagram: @escaping @Sendable ([UInt8], PeerAddress) -> Void
    ) -> EventLoopFuture<any Channel> {
        // No SO_REUSEADDR: on Linux it would let a second socket bind the same UDP port and
        // silently take part of this one's datagrams.
        DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        DatagramHandler(onDatagram: onDatagram, counters: counters))
                }
            }
            .bind(host: host, port: port)
    }

    private func reopenWhenClosed(_ channel: any Channel) {
        channel.closeFuture.whenComplete { [self] _ in
            guard !closing.load(ordering: .acquiring) else { return }
            reopen(on: channel.eventLoop)
        }
    }

    private func reopen(on loop: any EventLoop) {
        Self.openChannel(host: host, port: localPort, counters: counters, onDatagram: onDatagram).whenComplete {
            [self] result in
            switch result {
            case .success(let reopened):
                counters.reopens.add(1, ordering: .relaxed)
                channel.withLock { $0 = reopened }
                // A `close()` that came while the socket was being bound must still close it.
                if closing.load(ordering: .acquiring) {
                    reopened.close(promise: nil)
                } else {
                    reopenWhenClosed(reopened)
                }
            case .failure:
                guard !closing.load(ordering: .acquiring) else { return }
                loop.scheduleTask(in: Self.reopenRetry) { [self] in reopen(on: loop) }
            }
        }
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
        let channel = channel.withLock { $0 }
        let buffer = channel.allocator.buffer(bytes: datagram)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenFailure { [counters] _ in counters.sendErrors.add(1, ordering: .relaxed) }
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address.socketAddress, data: buffer), promise: promise)
    }

    /// Datagrams dropped because the socket refused them.
    public var sendErrorCount: Int { counters.sendErrors.load(ordering: .relaxed) }
    /// Errors the socket reported while receiving (the socket stays open).
    public var receiveErrorCount: Int { counters.receiveErrors.load(ordering: .relaxed) }
    /// Times the socket was bound again after an error closed it.
    public var reopenCount: Int { counters.reopens.load(ordering: .relaxed) }

    /// Closes the socket; no datagram is delivered once this returns. Closing twice is harmless.
    public func close() async {
        closing.store(true, ordering: .releasing)
        try? await channel.withLock { $0 }.close()
    }

    /// Closes the current socket as an error would, without `close()`: for tests of the reopening.
    func closeAsAnErrorWould() async {
        try? await channel.withLock { $0 }.close()
    }
}
