import Testing

@testable import VoiceWire

@Suite struct KeyAgreementTests {
    let session: [UInt8] = Array("match-42".utf8)

    @Test func bothSidesDeriveTheSameKey() throws {
        let a = KeyAgreement()
        let b = KeyAgreement()
        #expect(a.publicKeyBytes.count == 32 && a.publicKeyBytes != b.publicKeyBytes)
        let ab = try a.pairwiseKey(peerPublicKey: b.publicKeyBytes, session: session, local: alice, remote: bob)
        let ba = try b.pairwiseKey(peerPublicKey: a.publicKeyBytes, session: session, local: bob, remote: alice)
        #expect(ab.material == ba.material)

        let key = SenderKey.random(epoch: 3)
        let wrapped = ab.wrap(key, sender: alice, channel: 2)
        #expect(wrapped.count == PairwiseKey.wrappedBytes)
        #expect(try ba.unwrap(wrapped, sender: alice, channel: 2) == key)
    }

    @Test func keysDifferAcrossSessionsAndPairs() throws {
        let a = KeyAgreement()
        let b = KeyAgreement()
        let c = KeyAgreement()
        let ab = try a.pairwiseKey(peerPublicKey: b.publicKeyBytes, session: session, local: alice, remote: bob)
        let abLater = try a.pairwiseKey(
            peerPublicKey: b.publicKeyBytes, session: Array("match-43".utf8), local: alice, remote: bob)
        let ac = try a.pairwiseKey(peerPublicKey: c.publicKeyBytes, session: session, local: alice, remote: carol)
        // The same X25519 secret bound to other media IDs.
        let abMislabelled = try a.pairwiseKey(
            peerPublicKey: b.publicKeyBytes, session: session, local: alice, remote: carol)
        #expect(ab.material != abLater.material)
        #expect(ab.material != ac.material)
        #expect(ab.material != abMislabelled.material)
        let wrapped = ab.wrap(.random(epoch: 0), sender: alice, channel: 0)
        #expect(throws: SecurityError.invalidWrappedKey) { try abLater.unwrap(wrapped, sender: alice, channel: 0) }
        #expect(throws: SecurityError.invalidWrappedKey) { try ac.unwrap(wrapped, sender: alice, channel: 0) }
    }

    @Test func badPublicKeysAndSessionsAreRefused() {
        let a = KeyAgreement()
        for bytes in [[], [UInt8](repeating: 9, count: 31), [UInt8](repeating: 9, count: 33)] {
            #expect(throws: SecurityError.invalidPublicKey) {
                try a.pairwiseKey(peerPublicKey: bytes, session: session, local: alice, remote: bob)
            }
        }
        // Points of small order (u = 0 and u = 1): the shared secret would be zero whatever our key.
        for point in [[UInt8](repeating: 0, count: 32), [1] + [UInt8](repeating: 0, count: 31)] {
            #expect(throws: SecurityError.invalidPublicKey) {
                try a.pairwiseKey(peerPublicKey: point, session: session, local: alice, remote: bob)
            }
        }
        #expect(throws: SecurityError.emptySession) {
            try a.pairwiseKey(peerPublicKey: KeyAgreement().publicKeyBytes, session: [], local: alice, remote: bob)
        }
    }

    @Test func wrappedKeysRefuseTamperingAndTheWrongContext() throws {
        let a = KeyAgreement()
        let b = KeyAgreement()
        let ab = try a.pairwiseKey(peerPublicKey: b.publicKeyBytes, session: session, local: alice, remote: bob)
        let ba = try b.pairwiseKey(peerPublicKey: a.publicKeyBytes, session: session, local: bob, remote: alice)
        let key = SenderKey.random(epoch: 7)
        let wrapped = ab.wrap(key, sender: alice, channel: 4)
        #expect(ab.wrap(key, sender: alice, channel: 4) != wrapped, "each wrap takes a fresh nonce")

        for index in wrapped.indices {
            for bit in 0..<8 {
                var tampered = wrapped
                tampered[index] ^= 1 << bit
                #expect(throws: SecurityError.invalidWrappedKey, "byte \(index) bit \(bit)") {
                    try ba.unwrap(tampered, sender: alice, channel: 4)
                }
            }
        }
        #expect(throws: SecurityError.invalidWrappedKey) { try ba.unwrap(wrapped, sender: carol, channel: 4) }
        #expect(throws: SecurityError.invalidWrappedKey) { try ba.unwrap(wrapped, sender: alice, channel: 5) }
        #expect(throws: SecurityError.invalidWrappedKey) {
            try ba.unwrap(Array(wrapped.dropLast()), sender: alice, channel: 4)
        }
        #expect(throws: SecurityError.invalidWrappedKey) { try ba.unwrap(wrapped + [0], sender: alice, channel: 4) }
        #expect(try ba.unwrap(wrapped, sender: alice, channel: 4) == key)
    }

    @Test func senderKeysFromBytes() throws {
        let bytes = [UInt8](repeating: 0x42, count: 32)
        let key = try SenderKey(epoch: 1, bytes: bytes)
        #expect(key == (try SenderKey(epoch: 1, bytes: bytes)))
        #expect(key != (try SenderKey(epoch: 2, bytes: bytes)))
        #expect(key.material.bytes == bytes)
        #expect(
            !key.description.contains("66") && !key.description.contains("42") && key.description.contains("epoch: 1"))
        #expect(SenderKey.random(epoch: 1) != SenderKey.random(epoch: 1))
        #expect(throws: SecurityError.invalidKeyLength(31)) { try SenderKey(epoch: 0, bytes: bytes.dropLast()) }
    }
}
