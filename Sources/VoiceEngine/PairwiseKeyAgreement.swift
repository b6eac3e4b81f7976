import VoiceWire

/// One pairwise key's inputs, read under the engine's lock, and the key worked out from them
/// once the lock is released: X25519 and HKDF are the one costly step of signalling, and the
/// engine thread waits for whoever holds the lock.
///
/// The key is used only if the message is handled with exactly these inputs; if anything
/// changed in between (the session was replaced, the peer rejoined), it is worked out again
/// under the lock.
struct PairwiseKeyAgreement: Sendable {
    struct Inputs: Sendable, Hashable {
        var ownPublicKey: [UInt8]
        var peerPublicKey: [UInt8]
        var salt: [UInt8]
        var local: MediaID
        var remote: MediaID
    }

    let inputs: Inputs
    let key: Result<PairwiseKey, SecurityError>

    /// Works out the key; call it without the engine's lock.
    init(_ keyAgreement: KeyAgreement, inputs: Inputs) {
        self.inputs = inputs
        key = Result { () throws(SecurityError) in
            try keyAgreement.pairwiseKey(
                peerPublicKey: inputs.peerPublicKey, session: inputs.salt, local: inputs.local, remote: inputs.remote)
        }
    }

    /// The key, if it was worked out from `inputs`.
    func key(for inputs: Inputs) -> Result<PairwiseKey, SecurityError>? {
        self.inputs == inputs ? key : nil
    }
}
