import Foundation
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

public struct SocketError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// A TCP socket that listens on loopback but never accepts or says anything: the kernel completes
/// connections into its backlog, so a caller connects and then hears nothing.
public final class SilentServer {
    public let descriptor: Int32
    public let port: Int

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            Glibc.close(descriptor)
            throw SocketError(description: "bind/listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() { Glibc.close(descriptor) }
}

/// A plain TCP client on loopback, to send bytes a well-behaved link never would.
public final class RawClient {
    public let descriptor: Int32

    public init(port: Int) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw SocketError(description: "connect() failed")
        }
        self.descriptor = descriptor
    }

    public func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Seconds until the server closed the connection (reads what it sends meanwhile), or nil if it
    /// was still open after `seconds`.
    public func secondsUntilClosed(within seconds: Double) -> Double? {
        let start = MediaTime.monotonicNow()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let elapsed = Double(MediaTime.monotonicNow() - start) / 1e9
            let left = Int32(max(0, (seconds - elapsed) * 1000))
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, left) > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return Double(MediaTime.monotonicNow() - start) / 1e9 }
        }
    }

    public func close() { Glibc.close(descriptor) }
}
