import NIOCore
import Synchronization

/// Error counts shared by a `UDPEndpoint` and its channel handler; atomics, so any thread may read.
final class DatagramErrorCounters: Sendable {
    let sendErrors = Atomic<Int>(0)
    let receiveErrors = Atomic<Int>(0)
}

/// Copies each received datagram out of NIO's buffer and hands it to the endpoint's callback.
///
/// Thread contract: lives on one channel's event loop and is only touched there.
final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let onDatagram: @Sendable ([UInt8], PeerAddress) -> Void
    private let counters: DatagramErrorCounters

    init(onDatagram: @escaping @Sendable ([UInt8], PeerAddress) -> Void, counters: DatagramErrorCounters) {
        self.onDatagram = onDatagram
        self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let host = envelope.remoteAddress.ipAddress, let port = envelope.remoteAddress.port,
            let source = try? PeerAddress(host: host, port: port)
        else {
            counters.receiveErrors.add(1, ordering: .relaxed)
            return
        }
        onDatagram(Array(envelope.data.readableBytesView), source)
    }

    /// A socket error (for example an ICMP error reported on a later read) must not close a socket
    /// that other peers still use.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        counters.receiveErrors.add(1, ordering: .relaxed)
    }
}
