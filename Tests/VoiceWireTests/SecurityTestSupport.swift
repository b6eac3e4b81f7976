import Testing
import VoiceWire

/// Seals `plaintext` into a fresh buffer and returns exactly the envelope's bytes.
func sealEnvelope(
    _ sealer: inout EnvelopeSealer, _ plaintext: [UInt8], content: SealedContent = .voice,
    destination: MediaID = SealedEnvelopeHeader.everyone
) throws -> [UInt8] {
    var output = [UInt8](repeating: 0xAA, count: SealedEnvelopeHeader.envelopeBytes(plaintextBytes: plaintext.count))
    let written = try output.withUnsafeMutableBytes { buffer in
        try plaintext.withUnsafeBytes { bytes in
            try sealer.seal(content, destination: destination, plaintext: bytes, into: buffer)
        }
    }
    #expect(written == output.count)
    return output
}

/// Opens `datagram`, returning its header and exactly the plaintext bytes.
func openEnvelope(_ opener: inout EnvelopeOpener, _ datagram: [UInt8]) throws(SecurityError) -> (
    header: SealedEnvelopeHeader, plaintext: [UInt8]
) {
    let input = UnsafeMutableRawBufferPointer.allocate(byteCount: datagram.count, alignment: 8)
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: max(datagram.count, 1), alignment: 8)
    defer {
        input.deallocate()
        output.deallocate()
    }
    input.copyBytes(from: datagram)
    let result = try opener.open(UnsafeRawBufferPointer(input), into: output)
    return (result.header, Array(output[0..<result.plaintextBytes]))
}

/// The error opening `datagram` throws, or nil when it opens.
func openError(_ opener: inout EnvelopeOpener, _ datagram: [UInt8]) -> SecurityError? {
    do {
        _ = try openEnvelope(&opener, datagram)
        return nil
    } catch {
        return error
    }
}

let alice = MediaID(participant: "alice")
let bob = MediaID(participant: "bob")
let carol = MediaID(participant: "carol")
