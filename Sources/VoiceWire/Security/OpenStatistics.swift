/// What an `EnvelopeOpener` did with the envelopes it was given: one count per outcome.
///
/// Every refused envelope is counted exactly once, under the first check it failed.
public struct OpenStatistics: Sendable, Hashable {
    /// Authenticated, decrypted and recorded in the replay window.
    public var opened = 0
    /// The tag did not match (`authenticationFailed`).
    public var authenticationFailures = 0
    /// Already opened under the same key (`replayed`).
    public var replays = 0
    /// Older than the replay window remembers (`tooOld`).
    public var tooOld = 0
    /// No key for the sender, its channel or its epoch (`unknownSender`, `unknownChannel`, `unknownEpoch`).
    public var unknownKey = 0
    /// The clear header did not parse (`wire`).
    public var malformed = 0
    /// The caller's plaintext buffer was too small (`bufferTooSmall`): the envelope was not read.
    public var outputTooSmall = 0

    public init() {}

    /// Every envelope that was refused, for whatever reason.
    public var refused: Int { authenticationFailures + replays + tooOld + unknownKey + malformed + outputTooSmall }
}
