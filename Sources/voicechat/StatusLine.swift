#if canImport(Glibc)
    import Glibc
#endif

/// Prints one line of a running session's status and flushes it at once: a script or a test that
/// reads the output through a pipe or a file sees each line as it happens, not when the buffer fills.
func printStatus(_ line: String) {
    print(line)
    fflush(nil)
}
