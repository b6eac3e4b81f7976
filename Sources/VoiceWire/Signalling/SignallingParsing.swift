/// The signalling parser as an entry point for the package's fuzzing, which cannot see the
/// message type itself.
package enum SignallingParsing {
    /// Parses `bytes` as a signalling message from an untrusted peer; whether they were one.
    package static func parses(_ bytes: [UInt8]) -> Bool {
        (try? SignallingMessage(decoding: bytes)) != nil
    }
}
