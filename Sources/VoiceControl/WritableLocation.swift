#if canImport(Glibc)
    import Glibc
#endif

/// Whether this process can create a file at a path, checked before a session starts so that a
/// mistyped path fails at once and not when the file is first written (after a caller arrives).
public enum WritableLocation {
    /// What stops this process from writing a file at `path` (creating it, or replacing the one
    /// there), in words, or nil when nothing does.
    public static func problem(writing path: String) -> String? {
        if let problem = problem(creating: path) { return problem }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { return "it is a directory; name a file in it" }
        guard access(path, W_OK) == 0 else { return "the file is not writable" }
        return nil
    }

    /// What stops a file from being created at `path`, in words, or nil when nothing does.
    static func problem(creating path: String) -> String? {
        let directory = self.directory(of: path)
        var info = stat()
        guard stat(directory, &info) == 0 else { return "its directory \(directory) does not exist" }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return "\(directory) is not a directory" }
        guard access(directory, W_OK | X_OK) == 0 else { return "its directory \(directory) is not writable" }
        return nil
    }

    /// The directory a path names its file in: "." for a bare name.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
