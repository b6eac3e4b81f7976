import Crypto

/// This participant's ephemeral X25519 key pair for one session (a call or a match).
///
/// The public key travels in signalling; each pair of participants then derives the same
/// `PairwiseKey` from the X25519 shared secret with HKDF-SHA256, salted with the session ID and
/// bound to both media IDs. A new session means a new `KeyAgreement`, so keys never outlive it.
public struct KeyAgreement: Sendable {
    /// Bytes of an X25519 public key.
    public static let publicKeyBytes = 32

    private let privateKey: PrivateKeyBox

    /// A fresh key pair from the system's secure random generator.
    public init() {
        privateKey = PrivateKeyBox(key: Curve25519.KeyAgreement.PrivateKey())
    }

    /// The public key to send in signalling (32 bytes).
    public var publicKeyBytes: [UInt8] {
        Array(privateKey.key.publicKey.rawRepresentation)
    }

    /// The key shared with the participant whose public key is `peerPublicKey`.
    ///
    /// Both sides get the same key whichever of them calls this: the media IDs enter the
    /// derivation in ascending order. `session` is the call's or match's ID; it must not be empty.
    public func pairwiseKey(peerPublicKey: [UInt8], session: [UInt8], local: MediaID, remote: MediaID)
        throws(SecurityError) -> PairwiseKey
    {
        guard peerPublicKey.count == Self.publicKeyBytes else { throw .invalidPublicKey }
        guard !session.isEmpty else { throw .emptySession }
        let secret: SharedSecret
        do {
            let peer = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey)
            secret = try privateKey.key.sharedSecretFromKeyAgreement(with: peer)
        } catch {
            throw .invalidPublicKey
        }
        // A low-order point gives the all-zero secret whatever our key is, so an attacker would
        // know the pairwise key (RFC 7748, section 6.1). swift-crypto does not refuse it; we do.
        let accumulated = secret.withUnsafeBytes { bytes in bytes.reduce(UInt8(0)) { $0 | $1 } }
        guard accumulated != 0 else { throw .invalidPublicKey }
        let low = min(local, remote).rawValue
        let high = max(local, remote).rawValue
        var info = Array(Self.pairwiseLabel.utf8)
        for value in [low, high] {
            info += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        }
        let key = secret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: session, sharedInfo: info, outputByteCount: SenderKey.byteCount)
        return PairwiseKey(material: SealingKey(key))
    }

    /// HKDF info label: names the purpose and version, so these keys never collide with another use.
    static let pairwiseLabel = "voicechat pairwise key v1\u{0}"
}

/// Holds the X25519 private key. swift-crypto 3.12 does not declare it Sendable, but it is an
/// immutable value (key bytes written once, at creation); nothing here mutates it.
private struct PrivateKeyBox: @unchecked Sendable {
    let key: Curve25519.KeyAgreement.PrivateKey
}
