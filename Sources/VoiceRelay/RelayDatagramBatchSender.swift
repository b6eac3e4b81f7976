import CVoiceSocket
import NIOCore
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Sends the copies forwarded during one read batch with `sendmmsg(2)` straight from preallocated
/// message headers, instead of one `Channel.write` per copy.
///
/// Why it exists: every received envelope becomes (match size − 1) copies, and through NIO each copy
/// paid for a pipeline write, a queued `AddressedEnvelope`, retains of the payload's storage and of its
/// address, and per-message setup again at flush — together about a sixth of the relay's CPU. Here a
/// payload is copied once into an arena, and each copy costs a few stores into a header that points at
/// it; the received buffer is released at once, so NIO can reuse its receive buffer.
///
/// What the kernel will not take now (`EAGAIN`: a full send buffer) goes to `overflow`, which hands it
/// to NIO's write path to queue until the socket is writable (later batches may overtake them, which
/// UDP allows anyway). A message the kernel refuses outright (an address it will not send to, a
/// pending ICMP error) is counted in `refusedMessages` and skipped: the messages after it are still sent.
///
/// Thread contract: used only on the relay's event loop. The socket belongs to the NIO channel; the
/// owner drops this sender when that channel goes inactive and never uses it afterwards.
final class RelayDatagramBatchSender {
    /// Most messages one `sendmmsg` call takes (`UIO_MAXIOV`).
    static let maximumMessages = 1024

    /// A payload copied into the arena, ready to be appended for any number of destinations.
    struct StagedPayload {
        fileprivate let offset: Int
        fileprivate let count: Int
    }

    /// Where the kernel will not take a message now, with its payload and destination.
    var overflow: (ByteBuffer, SocketAddress) -> Void = { _, _ in }
    /// Messages the kernel refused (and that were skipped) since the sender was made.
    private(set) var refusedMessages = 0
    /// `sendmmsg` calls made, for tests and diagnostics.
    private(set) var systemCalls = 0

    private let descriptor: CInt
    private let capacity: Int
    private let messages: UnsafeMutablePointer<cvoice_mmsghdr>
    private let vectors: UnsafeMutablePointer<iovec>
    private let addresses: UnsafeMutablePointer<sockaddr_in6>
    private let arena: UnsafeMutableRawBufferPointer
    private var count = 0
    private var arenaUsed = 0
    private let sendMultiple: SendMultiple

    /// Hands `count` headers at `messages` to the kernel for `descriptor`: how many it sent, or -1
    /// and the errno.
    typealias SendMultiple = (_ descriptor: CInt, _ messages: UnsafeMutableRawPointer, _ count: CUnsignedInt) -> (
        sent: Int, error: CInt
    )

    /// - Parameters:
    ///   - descriptor: a bound, non-blocking datagram socket owned by someone else.
    ///   - capacity: messages per `sendmmsg` call, at most `maximumMessages`.
    ///   - arenaBytes: payload bytes staged before a flush is forced; at least one largest datagram.
    ///   - send: the system call (tests pass a stand-in); nil makes no sender.
    init?(
        descriptor: CInt, capacity: Int = maximumMessages, arenaBytes: Int = 256 << 10,
        send: SendMultiple? = SystemSendMultipleMessages.call
    ) {
        guard let sendMultiple = send else { return nil }
        precondition(
            capacity > 0 && capacity <= Self.maximumMessages, "capacity must be in 1...\(Self.maximumMessages)")
        self.descriptor = descriptor
        self.capacity = capacity
        self.sendMultiple = sendMultiple
        messages = .allocate(capacity: capacity)
        vectors = .allocate(capacity: capacity)
        addresses = .allocate(capacity: capacity)
        arena = .allocate(byteCount: arenaBytes, alignment: 16)
        // Each slot's header points at its own vector and address for good; appending fills in values only.
        for slot in 0..<capacity {
            vectors[slot] = iovec(iov_base: nil, iov_len: 0)
            addresses[slot] = sockaddr_in6()
            var header = msghdr()
            header.msg_name = UnsafeMutableRawPointer(addresses + slot)
            header.msg_iov = vectors + slot
            header.msg_iovlen = 1
            messages[slot] = cvoice_mmsghdr(msg_hdr: header, msg_len: 0)
        }
    }

    deinit {
        messages.deallocate()
        vectors.deallocate()
        addresses.deallocate()
        arena.deallocate()
    }

    /// Copies `payload` into the arena (flushing first if it is full); nil if it could never fit.
    func stage(_ payload: ByteBuffer) -> StagedPayload? {
        let bytes = payload.readableBytes
        guard bytes <= arena.count else { return nil }
        if arenaUsed + bytes > arena.count { flush() }
        let offset = arenaUsed
        payload.withUnsafeReadableBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: arena[offset..<offset + bytes]).copyMemory(from: source)
        }
        arenaUsed += bytes
        return StagedPayload(offset: offset, count: bytes)
    }

    /// Queues one copy of a staged payload. Valid until the next `stage` call (which may reuse the arena).
    func append(_ payload: StagedPayload, to destination: RelayDatagramDestination) {
        if count == capacity { sendQueued() }
        vectors[count].iov_base = arena.baseAddress! + payload.offset
        vectors[count].iov_len = payload.count
        addresses[count] = destination.address
        messages[count].msg_hdr.msg_namelen = destination.length
        count += 1
    }

    /// Sends everything queued and frees the arena.
    func flush() {
        sendQueued()
        arenaUsed = 0
    }

    private func sendQueued() {
        var next = 0
        while next < count {
            let (sent, error) = sendMultiple(
                descriptor, UnsafeMutableRawPointer(messages + next), CUnsignedInt(count - next))
            systemCalls &+= 1
            if sent > 0 {
                // Fewer than asked means the next one would block or failed; the retry says which.
                next += sent
                continue
            }
            switch error {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS:
                for slot in next..<count { overflow(payload(at: slot), destination(at: slot)) }
                next = count
            default:
                refusedMessages &+= 1
                next += 1
            }
        }
        count = 0
    }

    private func payload(at slot: Int) -> ByteBuffer {
        ByteBuffer(bytes: UnsafeRawBufferPointer(start: vectors[slot].iov_base, count: vectors[slot].iov_len))
    }

    private func destination(at slot: Int) -> SocketAddress {
        RelayDatagramDestination(address: addresses[slot]).socketAddress
    }
}

/// A member's UDP address as the kernel takes it, converted once when the member's address changes.
struct RelayDatagramDestination {
    /// Large enough for IPv4 and IPv6; `length` says how much of it is the address.
    fileprivate(set) var address = sockaddr_in6()
    fileprivate(set) var length: socklen_t = 0

    /// Nil for addresses that are neither IPv4 nor IPv6.
    init?(_ socketAddress: SocketAddress) {
        switch socketAddress {
        case .v4(let v4):
            var storage = sockaddr_in6()
            withUnsafeMutableBytes(of: &storage) { raw in
                withUnsafeBytes(of: v4.address) { raw.copyMemory(from: $0) }
            }
            address = storage
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6(let v6):
            address = v6.address
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        case .unixDomainSocket:
            return nil
        }
    }

    /// A destination the kernel was handed, as the address it holds (`length` then follows from its family).
    fileprivate init(address: sockaddr_in6) {
        self.address = address
        length = socklen_t(
            Int32(address.sin6_family) == AF_INET6
                ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    /// The port, which sits at the same place in an IPv4 and an IPv6 address.
    var port: Int { Int(UInt16(bigEndian: address.sin6_port)) }

    /// The same address as NIO writes to, for copies that go through the channel instead.
    var socketAddress: SocketAddress {
        if Int32(address.sin6_family) == AF_INET6 { return SocketAddress(address) }
        return withUnsafeBytes(of: address) { raw in
            SocketAddress(raw.loadUnaligned(as: sockaddr_in.self))
        }
    }
}

/// The C library's `sendmmsg`, through the C shim (the Glibc module does not import it).
enum SystemSendMultipleMessages {
    static func call(_ descriptor: CInt, _ messages: UnsafeMutableRawPointer, _ count: CUnsignedInt) -> (
        sent: Int, error: CInt
    ) {
        let sent = cvoice_sendmmsg(descriptor, messages.assumingMemoryBound(to: cvoice_mmsghdr.self), count, 0)
        return (Int(sent), sent < 0 ? errno : 0)
    }
}

/// Opens the relay's UDP socket itself so that `RelayDatagramBatchSender` can use its descriptor
/// (NIO does not expose the descriptor of a socket it opened).
enum RelayDatagramSocket {
    struct OpenError: Error, CustomStringConvertible {
        let description: String
    }

    /// A bound, non-blocking, close-on-exec datagram socket; the caller owns the descriptor. No
    /// `SO_REUSEADDR`: on Linux it would let a second relay bind the same UDP port and take a
    /// share of its members' datagrams.
    ///
    /// IPv4 datagrams go out with Don't Fragment set and without path-MTU bookkeeping
    /// (`IP_PMTUDISC_PROBE`, as QUIC stacks do): without DF the kernel must pick a fresh IP ID for
    /// every datagram, a hashed and shared counter that cost about 5 % of the relay's CPU; envelopes are
    /// at most `RelayLimits.maximumDatagramBytes` (1400 by default), under any Ethernet path's MTU.
    static func open(host: String, port: Int) throws(OpenError) -> CInt {
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw OpenError(description: "cannot resolve \(host): \(error)")
        }
        func failure(_ step: String) -> OpenError {
            OpenError(description: "\(step) failed: \(String(cString: strerror(errno)))")
        }
        let family = address.protocol.rawValue
        // Non-blocking: NIO does not make a socket it is handed non-blocking, and a blocking one
        // would stall the event loop in a read with nothing left to read, or in a full `sendmmsg`.
        let descriptor = socket(
            family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket()") }
        var probe = CInt(IP_PMTUDISC_PROBE)
        let size = socklen_t(MemoryLayout<CInt>.size)
        let step: String
        if family == AF_INET, setsockopt(descriptor, CInt(IPPROTO_IP), IP_MTU_DISCOVER, &probe, size) != 0 {
            step = "IP_MTU_DISCOVER"
        } else if address.withSockAddr({ bind(descriptor, $0, socklen_t($1)) }) != 0 {
            step = "bind to \(endpointText(host: host, port: port))"
        } else {
            return descriptor
        }
        let error = failure(step)
        close(descriptor)
        throw error
    }
}
