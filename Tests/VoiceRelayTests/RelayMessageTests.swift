import Testing
import VoiceCore
import VoiceRelay
import VoiceRelayClient
import VoiceWire

@Suite struct RelayMessageTests {
    static let messages: [RelayMessage] = [
        .join(RelayJoin(token: "abc.def", participant: "alice", channels: [1, 2], muted: [7])),
        .joined(mediaID: 0xDEAD_BEEF), .refused(.expired), .startChannel(3), .stopChannel(3), .mute(9), .unmute(9),
        .keepalive(nonce: 42), .pong(nonce: 42), .leave, .kicked(.admin), .moved(channel: 4), .serverMute(true),
        .refused(.wrongConnection), .signalJoin(token: "abc.def", participant: "alice"),
        .signalJoined(members: []), .signalJoined(members: ["bob", "carol"]), .memberJoined("bob"),
        .memberLeft("bob"), .sendSignal(to: "bob", payload: [1, 2, 3]), .signal(from: "alice", payload: []),
        .position(mediaID: 7, VoicePosition(x: -12.5, y: 0, z: 1e6)), .hearingRange(channel: 2, range: 40),
        .hearingRange(channel: 2, range: 0),
        .join(
            RelayJoin(
                token: "abc.def", participant: "alice", channels: [1, 2], muted: [],
                channelNames: [1: "team", 2: "all"])),
        .channelName(3, "squad"),
        .redirect(address: "10.0.0.7:7700"), .moving(address: "[2001:db8::7]:7700"), .refused(.clusterUnavailable),
        .refused(.draining),
    ]

    /// A redirect's address is text like the others: never empty, at most 255 bytes.
    @Test func redirectAddressesAreBounded() throws {
        #expect(throws: RelayMessageError.self) { try RelayMessage.redirect(address: "").serialized() }
        let long = String(repeating: "a", count: RelayMessage.maximumAddressBytes + 1)
        #expect(throws: RelayMessageError.self) { try RelayMessage.moving(address: long).serialized() }
        var bytes = try RelayMessage.redirect(address: "10.0.0.7:7700").serialized()
        bytes.append(0)
        #expect(throws: RelayMessageError.self) { try RelayMessage(parsing: bytes) }
    }

    @Test(arguments: messages)
    func everyMessageRoundTrips(message: RelayMessage) throws {
        let bytes = try message.serialized()
        #expect(bytes[0] == 0x14)
        #expect(bytes[1] == message.kind.rawValue)
        #expect(try RelayMessage(parsing: bytes) == message)
    }

    /// Channel names are optional in a join (one without them ends at its mutes, as before), name
    /// only channels the join lists, and are refused empty or longer than 64 bytes.
    @Test func channelNamesAreOptionalAndBounded() throws {
        let plain = RelayJoin(token: "abc.def", participant: "alice", channels: [1], muted: [])
        let named = RelayJoin(
            token: "abc.def", participant: "alice", channels: [1], muted: [], channelNames: [1: "team"])
        #expect(try RelayMessage.join(named).serialized().count > RelayMessage.join(plain).serialized().count)
        let unlisted = RelayJoin(
            token: "abc.def", participant: "alice", channels: [1], muted: [], channelNames: [9: "x"])
        #expect(try RelayMessage.join(unlisted).serialized() == RelayMessage.join(plain).serialized())
        #expect(throws: RelayMessageError.invalidText(field: "channel name")) {
            try RelayMessage.channelName(1, String(repeating: "n", count: 65)).serialized()
        }
        #expect(throws: RelayMessageError.invalidText(field: "channel name")) {
            try RelayMessage.channelName(1, "").serialized()
        }
        #expect(try RelayMessage.join(named).serialized().count <= RelayMessage.maximumJoinBytes)
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

    @Test func positionsThatAreNotFiniteAndNegativeRangesAreRefused() throws {
        var position = try RelayMessage.position(mediaID: 7, VoicePosition(x: 1, y: 2, z: 3)).serialized()
        let nan = Float.nan.bitPattern
        position.replaceSubrange(10..<14, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: nan >> $0) })
        #expect(throws: RelayMessageError.invalidNumber(field: "position")) { try RelayMessage(parsing: position) }
        var range = try RelayMessage.hearingRange(channel: 1, range: 5).serialized()
        range[4] |= 0x80
        #expect(throws: RelayMessageError.invalidNumber(field: "range")) { try RelayMessage(parsing: range) }
        #expect(throws: RelayMessageError.invalidNumber(field: "range")) {
            try RelayMessage.hearingRange(channel: 1, range: .infinity).serialized()
        }
        #expect(throws: RelayMessageError.invalidNumber(field: "position")) {
            try RelayMessage.position(mediaID: 1, VoicePosition(x: 0, y: .infinity, z: 0)).serialized()
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

    @Test func largestSignalRoundTrips() throws {
        let message = RelayMessage.signal(
            from: String(repeating: "p", count: RelayToken.maximumIDBytes),
            payload: [UInt8](repeating: 9, count: RelayMessage.maximumSignalBytes))
        let bytes = try message.serialized()
        // It still fits one TCP frame of the relay.
        #expect(bytes.count <= Int(UInt16.max))
        #expect(try RelayMessage(parsing: bytes) == message)
    }

    @Test func oversizeSignalsAndRostersAreRefused() throws {
        let tooLarge = [UInt8](repeating: 0, count: RelayMessage.maximumSignalBytes + 1)
        #expect(
            throws: RelayMessageError.payloadTooLarge(bytes: tooLarge.count, maximum: RelayMessage.maximumSignalBytes)
        ) {
            try RelayMessage.sendSignal(to: "bob", payload: tooLarge).serialized()
        }
        // send signal to "b", declaring 65 001 payload bytes.
        #expect(throws: RelayMessageError.payloadTooLarge(bytes: 65_001, maximum: RelayMessage.maximumSignalBytes)) {
            try RelayMessage(parsing: [0x14, 18, 0, 1, 0x62, 0xFD, 0xE9])
        }
        // A payload shorter than declared.
        #expect(throws: RelayMessageError.wrongLength(kind: .signal, bytes: 9)) {
            try RelayMessage(parsing: [0x14, 19, 0, 1, 0x62, 0, 3, 1, 2])
        }
        let crowd = (0...RelayMessage.maximumRosterEntries).map { "player\($0)" }
        #expect(
            throws: RelayMessageError.tooManyEntries(
                field: "members", count: crowd.count, maximum: RelayMessage.maximumRosterEntries)
        ) { try RelayMessage.signalJoined(members: crowd).serialized() }
        #expect(throws: RelayMessageError.invalidText(field: "participant")) {
            try RelayMessage.memberJoined("").serialized()
        }
        #expect(throws: RelayMessageError.invalidText(field: "member")) {
            try RelayMessage(parsing: [0x14, 15, 0, 1, 0, 0])
        }
    }
}
