import Testing
import VoiceRelay
import VoiceWire

@Suite struct RelayMessageTests {
    static let messages: [RelayMessage] = [
        .join(RelayJoin(token: "abc.def", participant: "alice", channels: [1, 2], muted: [7])),
        .joined(mediaID: 0xDEAD_BEEF), .refused(.expired), .startChannel(3), .stopChannel(3), .mute(9), .unmute(9),
        .keepalive(nonce: 42), .pong(nonce: 42), .leave, .kicked(.admin), .moved(channel: 4), .serverMute(true),
    ]

    @Test(arguments: messages)
    func everyMessageRoundTrips(message: RelayMessage) throws {
        let bytes = try message.serialized()
        #expect(bytes[0] == 0x14)
        #expect(bytes[1] == message.kind.rawValue)
        #expect(try RelayMessage(parsing: bytes) == message)
    }

    @Test func trailingAndMissingBytesAreRefused() throws {
        let bytes = try RelayMessage.keepalive(nonce: 1).serialized()
        #expect(throws: RelayMessageError.wrongLength(kind: .keepalive, bytes: bytes.count + 1)) {
            try RelayMessage(parsing: bytes + [0])
        }
        #expect(throws: RelayMessageError.wrongLength(kind: .keepalive, bytes: bytes.count - 1)) {
            try RelayMessage(parsing: Array(bytes.dropLast()))
        }
    }

    @Test func unknownKindAndReasonAndForeignTypeAreRefused() {
        #expect(throws: RelayMessageError.unknownKind(99)) { try RelayMessage(parsing: [0x14, 99]) }
        #expect(throws: RelayMessageError.unknownReason(200)) { try RelayMessage(parsing: [0x14, 3, 200]) }
        #expect(throws: RelayMessageError.wire(.wrongMessageType(expected: .relay, found: .sealed))) {
            try RelayMessage(parsing: [0x13, 1])
        }
    }

    @Test func joinWithTooManyChannelsIsRefused() throws {
        var bytes: [UInt8] = [0x14, 1, 0, 1, 0x41, 0, 1, 0x42, UInt8(RelayJoin.maximumChannels + 1)]
        bytes += [UInt8](repeating: 0, count: 2 * (RelayJoin.maximumChannels + 1)) + [0]
        #expect(
            throws: RelayMessageError.tooManyEntries(
                field: "channels", count: RelayJoin.maximumChannels + 1, maximum: RelayJoin.maximumChannels)
        ) { try RelayMessage(parsing: bytes) }
    }
}
