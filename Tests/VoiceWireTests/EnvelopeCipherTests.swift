import Testing

@testable import VoiceWire

/// The envelope cipher is RFC 8439's AEAD_CHACHA20_POLY1305, checked against the RFC's own example.
@Suite struct EnvelopeCipherTests {
    // RFC 8439, section 2.8.2. Its nonce, 07000000 4041424344454647, is an envelope nonce: epoch 7,
    // then the counter big-endian.
    let key = Array(0x80...0x9F as ClosedRange<UInt8>).withUnsafeBytes { SealingKey(bytes: $0) }
    let header: [UInt8] = hex("50515253c0c1c2c3c4c5c6c7")
    let plaintext = Array(
        ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
            + "sunscreen would be it.").utf8)
    let ciphertext: [UInt8] = hex(
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
            + "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
            + "3ff4def08e4b7a9de576d26586cec64b6116")
    let tag: [UInt8] = hex("1ae10b594f09e26a7e902ecbd0600691")

    @Test func sealsTheRFCExampleInPlace() {
        var text = plaintext
        var sealedTag = [UInt8](repeating: 0, count: EnvelopeCipher.tagBytes)
        text.withUnsafeMutableBytes { text in
            sealedTag.withUnsafeMutableBytes { sealedTag in
                header.withUnsafeBytes { header in
                    EnvelopeCipher.seal(
                        text.baseAddress!, count: text.count, tag: sealedTag.baseAddress!, authenticating: header,
                        epoch: 7, counter: 0x4041_4243_4445_4647, key: key)
                }
            }
        }
        #expect(text == ciphertext)
        #expect(sealedTag == tag)
    }

    @Test func opensTheRFCExampleAndRefusesAChangedHeader() {
        func open(header: [UInt8]) -> [UInt8]? {
            var opened = [UInt8](repeating: 0, count: ciphertext.count)
            let accepted = opened.withUnsafeMutableBytes { opened in
                ciphertext.withUnsafeBytes { ciphertext in
                    tag.withUnsafeBytes { tag in
                        header.withUnsafeBytes { header in
                            EnvelopeCipher.open(
                                ciphertext, tag: tag.baseAddress!, authenticating: header, into: opened.baseAddress!,
                                epoch: 7, counter: 0x4041_4243_4445_4647, key: key)
                        }
                    }
                }
            }
            return accepted ? opened : nil
        }
        #expect(open(header: header) == plaintext)
        var changed = header
        changed[0] ^= 1
        #expect(open(header: changed) == nil)
    }
}

private func hex(_ string: String) -> [UInt8] {
    let digits = Array(string.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}
