/// Why a key could not be agreed, wrapped or installed, or an envelope could not be sealed or opened.
///
/// Every way an envelope is refused has its own case, so a receiver can count them separately; the
/// description says what was wrong and what to do about it.
public enum SecurityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The tag does not match: the envelope was forged, corrupted, or sealed under another key.
    case authenticationFailed
    /// An envelope with this counter was already opened under the same key.
    case replayed(counter: UInt64)
    /// The counter is older than the replay window remembers, so it cannot be told from a replay.
    case tooOld(counter: UInt64)
    /// The sender is known on this channel, but neither of its held keys has this epoch.
    case unknownEpoch(UInt8)
    /// No key of this sender is installed at all.
    case unknownSender(MediaID)
    /// The sender has keys, but none for this channel.
    case unknownChannel(sender: MediaID, channel: ChannelNumber)
    /// A peer's X25519 public key has the wrong length or yields no usable shared secret.
    case invalidPublicKey
    /// The session ID that salts the pairwise keys is empty.
    case emptySession
    /// A wrapped sender key is malformed, tampered with, or wrapped for another sender or channel.
    case invalidWrappedKey
    /// Sender key material does not have `SenderKey.byteCount` bytes.
    case invalidKeyLength(Int)
    /// The sender's counter under its current key is used up; install a new key to go on sealing.
    case counterExhausted
    /// The envelope's clear header could not be parsed.
    case wire(WireError)
    /// The caller's output buffer cannot hold the result.
    case bufferTooSmall(needed: Int, available: Int)

    public var description: String {
        switch self {
        case .authenticationFailed:
            "sealed envelope failed authentication: forged, corrupted in transit, or sealed under another key"
        case .replayed(let counter):
            "sealed envelope with counter \(counter) was already opened under this key (replay or duplicate)"
        case .tooOld(let counter):
            "sealed envelope with counter \(counter) is older than the replay window of \(ReplayWindow.width) "
                + "counters"
        case .unknownEpoch(let epoch):
            "sealed envelope uses key epoch \(epoch), which is neither the sender's current nor previous key; "
                + "the key was not delivered yet, or is retired"
        case .unknownSender(let sender):
            "no key is installed for sender \(sender); it has not joined, or has left"
        case .unknownChannel(let sender, let channel):
            "sender \(sender) has no key installed for channel \(channel)"
        case .invalidPublicKey:
            "the peer's X25519 public key is not \(KeyAgreement.publicKeyBytes) bytes or is a low-order point; "
                + "the signalling message carrying it is corrupt or hostile"
        case .emptySession:
            "the session ID is empty; pairwise keys need the call's or match's ID so they differ per session"
        case .invalidWrappedKey:
            "the wrapped sender key does not open: it is malformed, tampered with, or wrapped for another "
                + "sender, channel or session"
        case .invalidKeyLength(let count):
            "sender key material has \(count) bytes; it must have exactly \(SenderKey.byteCount)"
        case .counterExhausted:
            "the message counter under this sender key is used up; install a new key (rekey) before sealing more"
        case .wire(let error):
            "sealed envelope is malformed: \(error)"
        case .bufferTooSmall(let needed, let available):
            "output buffer has \(available) bytes but \(needed) are needed"
        }
    }
}
