import ArgumentParser

/// A failure to report to the user as one line on stderr with a non-zero exit code: the
/// message says what went wrong and what to do.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
