#if canImport(Glibc)
    import Glibc
#endif

/// Lines that scripts and other processes wait for ("listening on …") must leave at once; into a
/// pipe, stdout is block-buffered and would hold them back.
enum StandardOutput {
    static func line(_ text: String) {
        print(text)
        // nil flushes every stream, without touching the (not concurrency-safe) `stdout` global.
        fflush(nil)
    }
}
