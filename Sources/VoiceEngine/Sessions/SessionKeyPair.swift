import VoiceWire

/// A call's or match's X25519 key pair with its public key, made on the caller's thread before
/// the engine's state is touched: deriving the public key is a scalar multiplication, which the
/// engine thread must not do.
struct SessionKeyPair: Sendable {
    let agreement: KeyAgreement
    let publicKey: [UInt8]

    init() {
        agreement = KeyAgreement()
        publicKey = agreement.publicKeyBytes
    }
}
