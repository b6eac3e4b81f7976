import Crypto

/// A ChaCha20-Poly1305 key held for sealing and opening.
///
/// swift-crypto 3.12 does not declare `SymmetricKey` Sendable, though it is an immutable value:
/// its bytes live in copy-on-write storage written once, at creation, and only read afterwards
/// (and wiped when the last copy goes). This wrapper never exposes a way to mutate them, so
/// sharing it across threads is safe.
struct SealingKey: @unchecked Sendable, Equatable {
    let key: SymmetricKey

    init(_ key: SymmetricKey) { self.key = key }

    init(bytes: UnsafeRawBufferPointer) { self.key = SymmetricKey(data: bytes) }

    /// Constant-time comparison (swift-crypto's).
    static func == (lhs: SealingKey, rhs: SealingKey) -> Bool { lhs.key == rhs.key }

    var bytes: [UInt8] { key.withUnsafeBytes { Array($0) } }

    /// The key's bytes for the duration of `body`, without copying them.
    func withUnsafeBytes<Result>(_ body: (UnsafePointer<UInt8>) -> Result) -> Result {
        key.withUnsafeBytes { raw in body(raw.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }
}
