import Crypto

/// The key two participants share for one session; it only carries sender keys between them.
///
/// A wrapped sender key is, in bytes: epoch (1), nonce (12), encrypted key (32), tag (16). The
/// associated data binds it to the sender, the channel and the epoch, so a key delivered for one
/// sender or channel cannot be replayed as another's, and its epoch cannot be changed in transit.
public struct PairwiseKey: Sendable {
    /// Bytes of a wrapped sender key.
    public static let wrappedBytes = 1 + 12 + SenderKey.byteCount + 16

    let material: SealingKey

    init(material: SealingKey) { self.material = material }

    /// `key` encrypted for the peer, to send in signalling.
    public func wrap(_ key: SenderKey, sender: MediaID, channel: ChannelNumber) -> [UInt8] {
        let context = Self.associatedData(epoch: key.epoch, sender: sender, channel: channel)
        // A random nonce is safe here: a session wraps a few keys per pair, far from the 2^48 or so
        // where random 96-bit nonces risk colliding.
        let sealed: ChaChaPoly.SealedBox
        do {
            sealed = try key.material.key.withUnsafeBytes { bytes in
                try ChaChaPoly.seal(bytes, using: material.key, authenticating: context)
            }
        } catch {
            // ChaChaPoly only throws for a key of the wrong size, which a PairwiseKey never holds.
            preconditionFailure("ChaCha20-Poly1305 refused a 256-bit key: \(error)")
        }
        return [key.epoch] + Array(sealed.combined)
    }

    /// The sender key in `wrapped`, if it was wrapped with this key for this sender and channel.
    public func unwrap(_ wrapped: [UInt8], sender: MediaID, channel: ChannelNumber) throws(SecurityError) -> SenderKey {
        guard wrapped.count == Self.wrappedBytes else { throw .invalidWrappedKey }
        let epoch = wrapped[0]
        let context = Self.associatedData(epoch: epoch, sender: sender, channel: channel)
        do {
            let box = try ChaChaPoly.SealedBox(combined: wrapped[1...])
            let bytes = try ChaChaPoly.open(box, using: material.key, authenticating: context)
            return try SenderKey(epoch: epoch, bytes: bytes)
        } catch {
            throw .invalidWrappedKey
        }
    }

    static func associatedData(epoch: UInt8, sender: MediaID, channel: ChannelNumber) -> [UInt8] {
        let id = sender.rawValue
        return Array("voicechat sender key v1\u{0}".utf8) + [
            UInt8(truncatingIfNeeded: id >> 24), UInt8(truncatingIfNeeded: id >> 16),
            UInt8(truncatingIfNeeded: id >> 8), UInt8(truncatingIfNeeded: id),
            UInt8(truncatingIfNeeded: channel.rawValue >> 8), UInt8(truncatingIfNeeded: channel.rawValue), epoch,
        ]
    }
}

extension PairwiseKey: Equatable {
    /// Constant-time, as `SealingKey`'s: whether two derivations gave the same key.
    public static func == (lhs: PairwiseKey, rhs: PairwiseKey) -> Bool { lhs.material == rhs.material }
}
