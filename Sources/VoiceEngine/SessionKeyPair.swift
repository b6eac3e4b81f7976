import VoiceWire

/// A call's or match's X25519 key pair with its public key, made before the engine's lock is
/// taken: deriving the public key is a scalar multiplication, which the engine thread must not
/// wait behind.
struct SessionKeyPair: Sendable {
    let agreement: KeyAgreement
    let publicKey: [UInt8]

    init() {
        agreement = KeyAgreement()
        publicKey = agreement.publicKeyBytes
    }
}
