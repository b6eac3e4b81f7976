import Testing
import VoiceWire

@Suite struct SignallingFrameTests {
    private func decodeAll(_ bytes: [UInt8]) throws(SignallingFrameError) -> [SignallingFrame] {
        var decoder = SignallingFrameDecoder()
        decoder.append(bytes)
        var frames: [SignallingFrame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        try decoder.finish()
        return frames
    }

    /// A frame with the given type byte and payload, its length field computed.
    private func raw(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 1
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type]
            + payload
    }

    @Test func everyFrameKindRoundTrips() throws {
        let frames: [SignallingFrame] = [
            .hello(participant: "alice ünïcode"), .signalling([1, 2, 3]), .signalling([]),
            .realTime(Array(repeating: 7, count: 1500)), .bye, .refused(reason: "busy"),
            .signalling(Array(repeating: 9, count: SignallingFrame.maximumLength)),
        ]
        let bytes = frames.flatMap { $0.encoded() }
        #expect(try decodeAll(bytes) == frames)
    }

    @Test func framesSplitAcrossReadsComeOutWhole() throws {
        let frames: [SignallingFrame] = [.hello(participant: "bob"), .signalling(Array(0..<200)), .bye]
        let bytes = frames.flatMap { $0.encoded() }
        var decoder = SignallingFrameDecoder()
        var decoded: [SignallingFrame] = []
        for byte in bytes {
            decoder.append([byte])
            while let frame = try decoder.next() { decoded.append(frame) }
        }
        #expect(decoded == frames)
        #expect(decoder.bufferedBytes == 0)
    }

    @Test func anOversizedLengthIsRefusedBeforeItsBytesArrive() {
        var decoder = SignallingFrameDecoder()
        decoder.append([0x7F, 0xFF, 0xFF, 0xFF])
        #expect(
            throws: SignallingFrameError.oversize(
                kind: nil, length: 0x7FFF_FFFF, maximum: SignallingFrame.maximumLength + 1)
        ) {
            try decoder.next()
        }
    }

    @Test func anOversizedRealTimeFrameIsRefused() {
        #expect(throws: SignallingFrameError.oversize(kind: .realTime, length: 1501, maximum: 1500)) {
            try decodeAll(raw(3, Array(repeating: 0, count: 1501)))
        }
    }

    @Test func aZeroLengthFrameIsRefused() {
        #expect(throws: SignallingFrameError.emptyFrame) { try decodeAll([0, 0, 0, 0]) }
    }

    @Test func anUnknownTypeIsRefused() {
        #expect(throws: SignallingFrameError.unknownFrameType(9)) { try decodeAll(raw(9, [1])) }
    }

    @Test func aStreamEndingMidFrameIsTruncated() {
        let frame = SignallingFrame.signalling([1, 2, 3, 4]).encoded()
        #expect(throws: SignallingFrameError.truncated(kind: .signalling, needed: 9, available: 7)) {
            try decodeAll(Array(frame.prefix(7)))
        }
        #expect(throws: SignallingFrameError.truncated(kind: nil, needed: 4, available: 2)) {
            try decodeAll([0, 0])
        }
    }

    @Test func aHelloShorterThanItsFieldsIsTruncated() {
        #expect(throws: SignallingFrameError.truncated(kind: .hello, needed: 5, available: 3)) {
            try decodeAll(raw(1, Array("VCS".utf8)))
        }
    }

    @Test func aHelloOfAnotherVersionIsRefused() {
        #expect(throws: SignallingFrameError.unsupportedVersion(2)) {
            try decodeAll(raw(1, Array("VCSL".utf8) + [2] + Array("alice".utf8)))
        }
    }

    @Test func aHelloWithoutTheMagicIsNotALink() {
        #expect(throws: SignallingFrameError.notASignallingLink) {
            try decodeAll(raw(1, Array("HTTP/1.1 200".utf8)))
        }
    }

    @Test func aHelloParticipantMustBeUsable() {
        #expect(throws: SignallingFrameError.invalidParticipant("the participant ID is empty")) {
            try decodeAll(raw(1, Array("VCSL".utf8) + [1]))
        }
        #expect(throws: SignallingFrameError.self) {
            try decodeAll(raw(1, Array("VCSL".utf8) + [1, 0xFF, 0xFE]))
        }
        #expect(throws: SignallingFrameError.self) {
            try decodeAll(raw(1, Array("VCSL".utf8) + [1] + Array(repeating: 0x61, count: 257)))
        }
    }

    @Test func aByeWithAPayloadIsRefused() {
        #expect(throws: SignallingFrameError.unexpectedPayload(kind: .bye, bytes: 2)) { try decodeAll(raw(4, [1, 2])) }
    }

    @Test func aRefusalMustBeText() {
        #expect(throws: SignallingFrameError.invalidText(kind: .refused)) { try decodeAll(raw(5, [0xC3])) }
    }

    @Test func everyErrorSaysSomething() {
        let errors: [SignallingFrameError] = [
            .oversize(kind: nil, length: 1, maximum: 0), .emptyFrame, .unknownFrameType(9),
            .truncated(kind: .hello, needed: 5, available: 1), .notASignallingLink, .unsupportedVersion(2),
            .invalidParticipant("x"), .unexpectedPayload(kind: .bye, bytes: 1), .invalidText(kind: .refused),
            .helloExpected(got: .signalling), .repeatedHello,
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
    }
}
