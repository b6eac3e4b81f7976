import Crypto

/// A sender's key for one (session, channel), and its epoch.
///
/// Each sender draws a fresh random key per epoch and delivers it to every member wrapped with
/// their pairwise key (`PairwiseKey.wrap`). The description never shows the key bytes, so a key
/// that ends up in a log reveals only its epoch.
public struct SenderKey: Sendable, Hashable, CustomStringConvertible {
    /// Bytes of key material (ChaCha20-Poly1305 uses 256-bit keys).
    public static let byteCount = 32

    /// Which key of the sender this is; wraps from 255 to 0.
    public let epoch: UInt8
    let material: SealingKey

    /// A fresh key from the system's secure random generator.
    public static func random(epoch: UInt8) -> SenderKey {
        SenderKey(epoch: epoch, material: SealingKey(SymmetricKey(size: .bits256)))
    }

    /// A key from its bytes (exactly `byteCount` of them).
    public init(epoch: UInt8, bytes: some Collection<UInt8>) throws(SecurityError) {
        guard bytes.count == Self.byteCount else { throw .invalidKeyLength(bytes.count) }
        let copy = Array(bytes)
        self.init(epoch: epoch, material: copy.withUnsafeBytes { SealingKey(bytes: $0) })
    }

    init(epoch: UInt8, material: SealingKey) {
        self.epoch = epoch
        self.material = material
    }

    public static func == (lhs: SenderKey, rhs: SenderKey) -> Bool {
        lhs.epoch == rhs.epoch && lhs.material == rhs.material
    }

    /// Hashes the epoch only: equal keys have equal epochs, and the key bytes stay out of hash tables.
    public func hash(into hasher: inout Hasher) { hasher.combine(epoch) }

    public var description: String { "SenderKey(epoch: \(epoch))" }
}
