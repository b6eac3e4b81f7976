import VoiceWire

/// One pairwise key's inputs, read from the engine's state, and the key worked out from them on
/// the caller's thread: X25519 and HKDF are the costliest step of signalling, which the engine
/// thread must not do.
///
/// The key is used only if the message is handled with exactly these inputs; if anything
/// changed in between (the session was replaced, the peer rejoined), it is worked out again
/// where the message is handled.
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

    /// Works out the key; call it off the engine thread.
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
