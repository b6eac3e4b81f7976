import Foundation
import Synchronization
import VoiceSimulation

#if canImport(Glibc)
    import Glibc
#endif

/// What an attacker on this host throws at a relay until `stop`: junk datagrams (random bytes and
/// lengths) at a steady rate, and TCP connections, half held open saying nothing, half sending
/// junk (a frame header announcing the largest frame, then garbage).
final class JunkFlood: Sendable {
    struct Counts: Sendable {
        var datagrams = 0
        var connections = 0
        var idle = 0
        var junk = 0
    }

    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Int>(0)
    private let counts = Mutex(Counts())

    init(port: Int, datagramsPerSecond: Int) {
        start { [self] in sendDatagrams(to: port, perSecond: datagramsPerSecond) }
        start { [self] in openConnections(to: port) }
    }

    /// Stops both floods and returns what they sent.
    func stop() -> Counts {
        stopping.store(true, ordering: .releasing)
        while running.load(ordering: .acquiring) > 0 { usleep(5_000) }
        return counts.withLock { $0 }
    }

    private func start(_ body: @escaping @Sendable () -> Void) {
        running.add(1, ordering: .acquiringAndReleasing)
        Thread { [self] in
            body()
            running.subtract(1, ordering: .acquiringAndReleasing)
        }.start()
    }

    private func sendDatagrams(to port: Int, perSecond rate: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(descriptor) }
        var address = Self.loopback(port)
        var generator = SeededRandom(seed: 7)
        var buffer = [UInt8](repeating: 0, count: 1_400)
        let started = Date()
        var sent = 0
        while !stopping.load(ordering: .acquiring) {
            // Paced in bursts of a millisecond's worth.
            let due = Int(Date().timeIntervalSince(started) * Double(rate))
            guard sent < due else {
                usleep(1_000)
                continue
            }
            let length = Int.random(in: 1...buffer.count, using: &generator)
            for index in 0..<min(length, 64) { buffer[index] = UInt8.random(in: 0...255, using: &generator) }
            _ = buffer.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(descriptor, bytes.baseAddress, length, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            sent += 1
        }
        counts.withLock { $0.datagrams = sent }
    }

    private func openConnections(to port: Int) {
        var open: [Int32] = []
        defer { for descriptor in open { close(descriptor) } }
        var address = Self.loopback(port)
        let junk = [0xFF, 0xFF] + [UInt8](repeating: 0x5A, count: 5_000)
        var opened = 0
        while !stopping.load(ordering: .acquiring) {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(descriptor)
                usleep(2_000)
                continue
            }
            opened += 1
            if opened % 2 == 0 {
                _ = junk.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            open.append(descriptor)
            // Held open until the flood ends, up to 500 at a time (the oldest go first).
            if open.count > 500 { close(open.removeFirst()) }
            usleep(2_000)
        }
        counts.withLock {
            $0.connections = opened
            $0.junk = opened / 2
            $0.idle = opened - opened / 2
        }
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}
