import Foundation
import Synchronization
import VoiceCore
import VoiceSimulation

/// A user-space impairment proxy between real processes on loopback (this kernel has no netem):
/// UDP and TCP on one port, forwarded to a target port. Datagrams from clients to the target
/// cross a `SimulatedNetwork` in real time (seeded random or Gilbert–Elliott loss, uniform jitter
/// that reorders, delay), the same model the simulations use; datagrams back to the clients and
/// TCP streams in both directions pass untouched. Each client address gets an upstream socket of
/// its own, so the target sees one source per client and answers reach the right one.
///
/// One thread runs the UDP side (poll with a timeout up to the next due datagram); TCP
/// connections get a thread per direction.
final class ImpairmentProxy: Sendable {
    let port: Int
    private let targetPort: Int
    private let udpSocket: Int32
    private let tcpSocket: Int32
    private let stopping = Atomic<Bool>(false)
    /// Threads started and not yet finished.
    private let running = Atomic<Int>(0)
    /// What crossed the proxy, and how late the proxy itself delivered it.
    struct Counts: Sendable {
        /// Datagrams sent toward the target, lost, and delivered.
        var sent = 0
        var dropped = 0
        var delivered = 0
        /// Deliveries more than `lateThreshold` after their due time: the proxy's own thread was
        /// held up (the machine), which the listener sees as jitter no condition asked for.
        var late = 0
        var maximumLateness: MediaTime = 0

        static let lateThreshold = MediaTime.milliseconds(5)
    }

    let counts = Mutex<Counts>(Counts())
    /// While true the link is down: datagrams both ways are lost and TCP streams stall (nothing is
    /// read, as over a cable pulled out), until it is false again.
    let isCut = Atomic<Bool>(false)

    /// Binds UDP and TCP on 127.0.0.1 at a free port both share, forwarding to `targetPort`.
    init(targetPort: Int, conditions: NetworkConditions, seed: UInt64) throws {
        self.targetPort = targetPort
        var chosen: (udp: Int32, tcp: Int32, port: Int)?
        for _ in 0..<20 {
            let udp = try Self.bound(type: SOCK_DGRAM, port: 0)
            let port = Self.localPort(udp)
            if let tcp = try? Self.bound(type: SOCK_STREAM, port: port) {
                chosen = (udp, tcp, port)
                break
            }
            close(udp)
        }
        guard let chosen else { throw ProxyError("no port was free for both UDP and TCP on 127.0.0.1") }
        (udpSocket, tcpSocket, port) = chosen
        guard listen(tcpSocket, 16) == 0 else { throw ProxyError("listen failed: errno \(errno)") }
        start("proxy udp") { [self] in runUDP(SimulatedNetwork(conditions: conditions, seed: seed)) }
        start("proxy tcp accept") { [self] in acceptTCP() }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        shutdown(tcpSocket, Int32(SHUT_RDWR))
        while running.load(ordering: .acquiring) > 0 { usleep(5_000) }
        close(udpSocket)
        close(tcpSocket)
    }

    private func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        running.add(1, ordering: .acquiringAndReleasing)
        let thread = Thread { [self] in
            body()
            running.subtract(1, ordering: .acquiringAndReleasing)
        }
        thread.name = name
        thread.start()
    }

    // MARK: UDP

    private func runUDP(_ network: SimulatedNetwork) {
        var clients: [(address: sockaddr_in, upstream: Int32)] = []
        var buffer = [UInt8](repeating: 0, count: 2_048)
        defer { for client in clients { close(client.upstream) } }
        while !stopping.load(ordering: .acquiring) {
            let now = MediaTime.monotonicNow()
            network.deliver(until: now) { datagram, due in
                // The first two bytes name the client whose upstream socket carries it.
                let index = Int(datagram[0]) << 8 | Int(datagram[1])
                let payload = UnsafeRawBufferPointer(rebasing: datagram[2...])
                _ = send(clients[index].upstream, payload.baseAddress, payload.count, 0)
                let lateness = MediaTime.monotonicNow() - due
                counts.withLock {
                    $0.delivered += 1
                    if lateness > Counts.lateThreshold { $0.late += 1 }
                    $0.maximumLateness = max($0.maximumLateness, lateness)
                }
            }
            let wait = network.nextDeliveryTime.map { max(0, min(Int(($0 - now) / 1_000_000) + 1, 50)) } ?? 50
            var polls = [pollfd(fd: udpSocket, events: Int16(POLLIN), revents: 0)]
            polls += clients.map { pollfd(fd: $0.upstream, events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), Int32(wait)) > 0 else { continue }
            if polls[0].revents & Int16(POLLIN) != 0 {
                var from = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let count = buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &from) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(udpSocket, bytes.baseAddress! + 2, bytes.count - 2, 0, $0, &length)
                        }
                    }
                }
                if count > 0, isCut.load(ordering: .relaxed) {
                    counts.withLock {
                        $0.sent += 1
                        $0.dropped += 1
                    }
                } else if count > 0 {
                    // Impaired from when it came in, not from before the wait that it ended.
                    let arrival = MediaTime.monotonicNow()
                    var index = clients.firstIndex {
                        $0.address.sin_port == from.sin_port && $0.address.sin_addr.s_addr == from.sin_addr.s_addr
                    }
                    if index == nil, let upstream = try? connectedUpstream() {
                        clients.append((from, upstream))
                        index = clients.count - 1
                    }
                    if let index {
                        buffer[0] = UInt8(index >> 8)
                        buffer[1] = UInt8(index & 0xff)
                        let dropped = network.statistics.dropped
                        buffer.withUnsafeBytes {
                            network.send(UnsafeRawBufferPointer(rebasing: $0[0..<(count + 2)]), at: arrival)
                        }
                        let lost = network.statistics.dropped > dropped
                        counts.withLock {
                            $0.sent += 1
                            if lost { $0.dropped += 1 }
                        }
                    }
                }
            }
            // Only the clients polled: one added just now has nothing to read yet.
            for offset in 0..<(polls.count - 1) where polls[offset + 1].revents & Int16(POLLIN) != 0 {
                let client = clients[offset]
                let count = buffer.withUnsafeMutableBytes { recv(client.upstream, $0.baseAddress, $0.count, 0) }
                guard count > 0, !isCut.load(ordering: .relaxed) else { continue }
                _ = buffer.withUnsafeBytes { bytes in
                    Self.withSocketAddress(client.address) { sendto(udpSocket, bytes.baseAddress, count, 0, $0, $1) }
                }
            }
        }
    }

    private func connectedUpstream() throws -> Int32 {
        let socket = try Self.bound(type: SOCK_DGRAM, port: 0)
        guard connectToTarget(socket) else {
            close(socket)
            throw ProxyError("connect to the target failed: errno \(errno)")
        }
        return socket
    }

    private func connectToTarget(_ socket: Int32) -> Bool {
        Self.withSocketAddress(Self.loopback(port: targetPort)) { connect(socket, $0, $1) } == 0
    }

    // MARK: TCP

    private func acceptTCP() {
        while !stopping.load(ordering: .acquiring) {
            let client = accept(tcpSocket, nil, nil)
            guard client >= 0 else { continue }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard connectToTarget(upstream) else {
                close(client)
                close(upstream)
                continue
            }
            var one: Int32 = 1
            setsockopt(upstream, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            start("proxy tcp up") { [self] in pipe(from: client, to: upstream) }
            start("proxy tcp down") { [self] in pipe(from: upstream, to: client) }
        }
    }

    /// Copies bytes until either side closes or the proxy stops; then closes both directions.
    private func pipe(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var polls = [pollfd(fd: source, events: Int16(POLLIN), revents: 0)]
        while !stopping.load(ordering: .acquiring) {
            if isCut.load(ordering: .relaxed) {
                usleep(5_000)
                continue
            }
            guard poll(&polls, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes {
                    send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else { break }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
    }

    // MARK: Sockets

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    private static func bound(type: __socket_type, port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(type.rawValue), 0)
        guard descriptor >= 0 else { throw ProxyError("socket failed: errno \(errno)") }
        if type == SOCK_STREAM {
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard withSocketAddress(loopback(port: port), { bind(descriptor, $0, $1) }) == 0 else {
            close(descriptor)
            throw ProxyError("bind to 127.0.0.1:\(port) failed: errno \(errno)")
        }
        return descriptor
    }

    /// Calls `body` with `address` as the socket calls take it.
    private static func withSocketAddress<Result>(
        _ address: sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) -> Result {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func localPort(_ descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct ProxyError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
