import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One request line to a `--control` Unix socket and its reply line, as a script would send it.
enum ControlSocketClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends `line` (a JSON object) and returns the reply line.
    static func request(_ line: String, socket path: String) throws -> String {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(description: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect \(path): \(String(cString: strerror(errno)))") }
        let request = Array((line + "\n").utf8)
        guard write(descriptor, request, request.count) == request.count else {
            throw Failure(description: "write to \(path) failed")
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(UInt8(ascii: "\n")) {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            reply += buffer[0..<count]
        }
        return String(decoding: reply, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
