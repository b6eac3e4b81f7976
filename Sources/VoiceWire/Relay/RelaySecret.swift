import Crypto

/// The secret the game server and the relay share to sign and check join tokens.
public struct RelaySecret: Sendable {
    /// Fewer bytes than this make a MAC key that can be guessed.
    public static let minimumBytes = 16

    /// Kept as bytes (SymmetricKey is not Sendable); the key is made per use, once per join.
    public let bytes: [UInt8]

    var key: SymmetricKey { SymmetricKey(data: bytes) }

    public init(bytes: some Collection<UInt8>) throws(RelayTokenError) {
        guard bytes.count >= Self.minimumBytes else {
            throw .secretTooShort(bytes: bytes.count, minimum: Self.minimumBytes)
        }
        self.bytes = Array(bytes)
    }

    /// A fresh random 32-byte secret.
    public static func random() -> RelaySecret {
        RelaySecret(unchecked: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }
}
