import Foundation
import VoiceControl

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking Unix-domain socket client that speaks JSON lines, as a script would.
final class LineClient {
    private let descriptor: Int32
    private var buffered: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String, timeoutSeconds: Int = 5) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Self.connect(descriptor, path: path) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure(description: "connect to \(path): \(String(cString: strerror(code)))")
        }
    }

    deinit { close() }

    static func connect(_ descriptor: Int32, path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    private var isClosed = false

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    func send(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "write failed: \(errno)") }
            bytes = bytes.dropFirst(written)
        }
    }

    /// The next line, or nil when the read timed out or the server closed.
    func readLine() -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends one request line and returns the reply (skipping subscription pushes).
    func request(_ json: String) throws -> ControlReply {
        try send(json + "\n")
        while let line = readLine() {
            if line.hasPrefix("{\"event\"") { continue }
            return try JSONDecoder().decode(ControlReply.self, from: Data(line.utf8))
        }
        throw Failure(description: "no reply to \(json)")
    }

    /// Waits for the next subscription push.
    func nextPush() throws -> ControlPush {
        guard let line = readLine() else { throw Failure(description: "no push arrived") }
        return try JSONDecoder().decode(ControlPush.self, from: Data(line.utf8))
    }
}

/// A fresh socket path under /tmp, removed when the test is done with it.
func temporarySocketPath(_ name: String = #function) -> String {
    let tag = name.prefix(while: { $0.isLetter }).prefix(20)
    return "/tmp/vc-\(tag)-\(UInt32.random(in: 0...UInt32.max)).sock"
}
