import VoiceCore
import VoiceWire

/// A `keys` message's sender keys, opened on the thread that received it with the pairwise key
/// its sender had then: cryptography (and its allocations) that the engine thread must not do.
/// Used only if that is still the sender's pairwise key when the message is handled.
struct UnwrappedSenderKeys {
    let pairwise: PairwiseKey
    /// Each wrapped key opened, or why not, in the message's order.
    let keys: [Result<SenderKey, SecurityError>]
    /// What `keysInstalled` answers once every key is installed.
    let installed: [WrappedSenderKey]

    init(_ wrapped: [WrappedSenderKey], pairwise: PairwiseKey, sender: ParticipantID) {
        self.pairwise = pairwise
        let mediaID = sender.mediaID
        keys = wrapped.map { wrapped in
            Result { () throws(SecurityError) in
                try pairwise.unwrap(wrapped.bytes, sender: mediaID, channel: wrapped.channel)
            }
        }
        installed = wrapped.map { WrappedSenderKey(channel: $0.channel, epoch: $0.epoch, bytes: []) }
    }
}
