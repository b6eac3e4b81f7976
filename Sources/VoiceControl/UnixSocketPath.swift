#if canImport(Glibc)
    import Glibc
#endif

/// The file system side of a listening Unix-domain socket: whether a socket file is stale, and
/// which file we created, so that we remove our own and never someone else's.
enum UnixSocketPath {
    /// sun_path holds 108 bytes including the terminating NUL.
    static let maximumBytes = 107

    /// Identity of a file, to recognise the socket file we bound.
    struct FileIdentity: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Refuses a path no socket can be bound at: empty, too long for `sun_path`, in a directory
    /// that is missing or not writable, a file that is not a socket, or a socket in use. Changes
    /// nothing: `prepare` removes a stale socket when the server starts.
    static func check(_ path: String) throws(ControlError) {
        guard !path.isEmpty else { throw .socket("the control socket path is empty; give a file path") }
        guard path.utf8.count <= maximumBytes else {
            throw .socket(
                "the control socket path is \(path.utf8.count) bytes; Unix sockets allow at most \(maximumBytes), "
                    + "so choose a shorter path (e.g. under /tmp)")
        }
        if let problem = WritableLocation.problem(creating: path) {
            throw .socket("cannot listen on \(path): \(problem)")
        }
        try checkExisting(path)
    }

    /// Makes `path` free to bind: nothing there, or a socket file nothing listens on (removed).
    /// Refuses a path that is too long, a file that is not a socket, and a socket in use.
    static func prepare(_ path: String) throws(ControlError) {
        try check(path)
        // Left behind by a process that ended without removing it (`check` let only that through).
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .socket("cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Refuses what is at `path` unless it is nothing or a socket nothing listens on.
    private static func checkExisting(_ path: String) throws(ControlError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw .socket("\(path) exists and is not a socket; remove it or choose another control path")
        }
        switch probe(path) {
        case 0:
            throw .socket(
                "another process is listening on \(path); stop it or choose another control path")
        case ECONNREFUSED:
            return
        case let code:
            throw .socket("cannot check whether \(path) is in use: \(String(cString: strerror(code)))")
        }
    }

    /// Tries to connect to the socket at `path`: 0 when something accepts, else the errno.
    private static func probe(_ path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(maximumBytes))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0 ? 0 : errno
    }

    /// Removes the file at `path` if it is still the one we bound.
    static func remove(_ path: String, ifStill identity: FileIdentity?) {
        guard let identity, Self.identity(of: path) == identity else { return }
        unlink(path)
    }
}
