import CVoiceSodium

/// ChaCha20-Poly1305 (RFC 8439, the IETF variant with a 96-bit nonce) in caller-owned buffers.
///
/// Envelopes are sealed and opened on the engine thread, which must not allocate: swift-crypto's
/// `ChaChaPoly` returns its results in fresh `Data`, libsodium writes where it is told. The
/// construction is the same, so envelopes from either open with the other.
enum EnvelopeCipher {
    static let tagBytes = 16
    static let keyBytes = 32

    /// Whether libsodium initialised (it picks its CPU-specific code once, before first use).
    private static let isReady: Bool = sodium_init() >= 0

    /// Encrypts `count` bytes at `text` in place and writes the tag to `tag`.
    static func seal(
        _ text: UnsafeMutableRawPointer, count: Int, tag: UnsafeMutableRawPointer,
        authenticating header: UnsafeRawBufferPointer, epoch: UInt8, counter: UInt64, key: SealingKey
    ) {
        precondition(isReady, "libsodium did not initialise")
        withNonce(epoch: epoch, counter: counter) { nonce in
            key.withUnsafeBytes { key in
                let clear = text.assumingMemoryBound(to: UInt8.self)
                _ = crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                    clear, tag.assumingMemoryBound(to: UInt8.self), nil, clear, UInt64(count),
                    header.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(header.count), nil, nonce,
                    key)
            }
        }
    }

    /// Authenticates `ciphertext` and `header` against `tag` and decrypts into `plaintext` (at least
    /// as large; it may be `ciphertext` itself). Returns false, writing nothing, when they do not match.
    static func open(
        _ ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawPointer, authenticating header: UnsafeRawBufferPointer,
        into plaintext: UnsafeMutableRawPointer, epoch: UInt8, counter: UInt64, key: SealingKey
    ) -> Bool {
        precondition(isReady, "libsodium did not initialise")
        return withNonce(epoch: epoch, counter: counter) { nonce in
            key.withUnsafeBytes { key in
                crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                    plaintext.assumingMemoryBound(to: UInt8.self), nil,
                    (ciphertext.baseAddress ?? tag).assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count),
                    tag.assumingMemoryBound(to: UInt8.self),
                    header.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(header.count), nonce, key) == 0
            }
        }
    }

    /// The 12-byte nonce of an envelope, on the stack: [epoch, 0, 0, 0] then the counter, big-endian.
    /// It is never sent: the receiver rebuilds it from the clear header.
    @inline(__always)
    private static func withNonce<Result>(
        epoch: UInt8, counter: UInt64, _ body: (UnsafePointer<UInt8>) -> Result
    ) -> Result {
        var bytes: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[0] = epoch
            raw.storeBytes(of: counter.bigEndian, toByteOffset: 4, as: UInt64.self)
            return body(raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }
}
