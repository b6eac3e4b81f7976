import NIOCore
import Synchronization
import VoiceCore

/// Error counts shared by a `UDPEndpoint` and its channel handler; atomics, so any thread may read.
final class DatagramErrorCounters: Sendable {
    let sendErrors = Atomic<Int>(0)
    let receiveErrors = Atomic<Int>(0)
    /// Times the endpoint bound its socket again after an error closed it.
    let reopens = Atomic<Int>(0)
}

/// Copies each received datagram out of NIO's buffer and hands it to the endpoint's callback.
///
/// Thread contract: lives on one channel's event loop and is only touched there.
final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let onDatagram: @Sendable ([UInt8], PeerAddress) -> Void
    private let counters: DatagramErrorCounters
    /// Sources already converted: the text conversion is dear, and datagrams come from few peers.
    private var sources: [SocketAddress: PeerAddress] = [:]
    /// More distinct sources than an engine has peers' candidates; past it the memory starts over.
    private static let maximumSources = 256

    init(onDatagram: @escaping @Sendable ([UInt8], PeerAddress) -> Void, counters: DatagramErrorCounters) {
        self.onDatagram = onDatagram
        self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let source = peerAddress(of: envelope.remoteAddress) else {
            counters.receiveErrors.add(1, ordering: .relaxed)
            return
        }
        onDatagram(Array(envelope.data.readableBytesView), source)
    }

    private func peerAddress(of address: SocketAddress) -> PeerAddress? {
        if let known = sources[address] { return known }
        guard let host = address.ipAddress, let port = address.port,
            let source = try? PeerAddress(host: host, port: port)
        else { return nil }
        if sources.count >= Self.maximumSources { sources.removeAll(keepingCapacity: true) }
        sources[address] = source
        return source
    }

    /// A socket error (for example an ICMP error reported on a later read) must not close a socket
    /// that other peers still use.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        counters.receiveErrors.add(1, ordering: .relaxed)
    }
}
