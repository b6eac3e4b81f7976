import Crypto

/// The 12-byte ChaCha20-Poly1305 nonce of an envelope: [epoch, 0, 0, 0] then the counter, big-endian.
///
/// The nonce is never sent: the receiver rebuilds it from the clear header, so it costs no bytes.
@inline(__always)
func envelopeNonce(epoch: UInt8, counter: UInt64) -> ChaChaPoly.Nonce {
    var bytes: (UInt64, UInt32) = (0, 0)
    return withUnsafeMutableBytes(of: &bytes) { raw in
        raw[0] = epoch
        for index in 0..<8 {
            raw[4 + index] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * index))
        }
        // Only the first 12 bytes; a 12-byte nonce is always accepted, so this cannot fail.
        return try! ChaChaPoly.Nonce(data: UnsafeRawBufferPointer(rebasing: raw[0..<12]))
    }
}
