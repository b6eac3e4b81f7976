import VoiceCore

/// Byte 1 of a relay control message.
public enum RelayMessageKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case join = 1
    case joined = 2
    case refused = 3
    case startChannel = 4
    case stopChannel = 5
    case mute = 6
    case unmute = 7
    case keepalive = 8
    case pong = 9
    case leave = 10
    case kicked = 11
    case moved = 12
    case serverMute = 13
    case signalJoin = 14
    case signalJoined = 15
    case memberJoined = 16
    case memberLeft = 17
    case sendSignal = 18
    case signal = 19
    case position = 20
    case hearingRange = 21
    case channelName = 22
    case redirect = 23
    case moving = 24

    public var description: String {
        switch self {
        case .join: "join"
        case .joined: "joined"
        case .refused: "refused"
        case .startChannel: "start channel"
        case .stopChannel: "stop channel"
        case .mute: "mute"
        case .unmute: "unmute"
        case .keepalive: "keepalive"
        case .pong: "pong"
        case .leave: "leave"
        case .kicked: "kicked"
        case .moved: "moved"
        case .serverMute: "server mute"
        case .signalJoin: "signalling join"
        case .signalJoined: "signalling joined"
        case .memberJoined: "member joined"
        case .memberLeft: "member left"
        case .sendSignal: "send signal"
        case .signal: "signal"
        case .position: "position"
        case .hearingRange: "hearing range"
        case .channelName: "channel name"
        case .redirect: "redirect"
        case .moving: "moving"
        }
    }
}

/// Why the relay refused a join, or a control message from a connection that has not joined.
public enum RelayRefusal: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case malformedToken = 1
    case badSignature = 2
    case expired = 3
    case wrongMatch = 4
    /// The join's participant ID is not the token's.
    case participantMismatch = 5
    /// Another participant of the match derives the same media ID.
    case mediaIDCollision = 6
    case matchFull = 7
    case relayFull = 8
    /// A control message (other than join) from an address or connection that is not a member:
    /// the relay restarted or timed the member out, so the client should join again.
    case notJoined = 9
    case tooManyChannels = 10
    case tooManyMutes = 11
    /// A signalling join on a connection that carries media, or a media join on a signalling
    /// connection (or a signalling join over UDP): each needs its own TCP connection.
    case wrongConnection = 12
    /// The token names another relay (its audience) than this one.
    case wrongAudience = 13
    /// The relay is one of a cluster and cannot reach the cluster's store to place the match: the
    /// client tries again (or another relay of the cluster).
    case clusterUnavailable = 14
    /// The relay is draining (leaving its cluster) and takes no new matches: the client tries
    /// another relay of the cluster.
    case draining = 15

    /// Whether the same join may succeed later as it is (room opens up, the cluster answers,
    /// another relay takes it): the client retries instead of giving up.
    public var isTemporary: Bool {
        switch self {
        case .matchFull, .relayFull, .notJoined, .clusterUnavailable, .draining: true
        default: false
        }
    }

    package init(_ error: RelayTokenError) {
        switch error {
        case .malformed, .secretTooShort: self = .malformedToken
        case .badSignature: self = .badSignature
        case .expired: self = .expired
        case .wrongMatch: self = .wrongMatch
        case .wrongAudience: self = .wrongAudience
        }
    }

    public var description: String {
        switch self {
        case .malformedToken: "malformed token"
        case .badSignature: "bad token signature"
        case .expired: "token expired"
        case .wrongMatch: "token for a match this relay does not serve"
        case .participantMismatch: "participant ID differs from the token's"
        case .mediaIDCollision: "media ID collides with another participant's"
        case .matchFull: "match full"
        case .relayFull: "relay full"
        case .notJoined: "not joined"
        case .tooManyChannels: "too many channels"
        case .tooManyMutes: "too many muted players"
        case .wrongConnection: "signalling and media need separate connections (signalling over TCP only)"
        case .wrongAudience: "token for another relay"
        case .clusterUnavailable: "the relay cannot reach its cluster to place the match"
        case .draining: "the relay is leaving its cluster and takes no new matches"
        }
    }
}

/// Why the relay removed a member.
public enum RelayKickReason: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The game server kicked the participant through the admin API.
    case admin = 1
    /// The same participant joined again over the same transport from elsewhere.
    case replaced = 2
    /// The relay is shutting down.
    case shutdown = 3
    /// The match moved to another relay, where every member has joined: this one lets go.
    case moved = 4

    public var description: String {
        switch self {
        case .admin: "kicked by the game server"
        case .replaced: "replaced by a newer connection of the same participant"
        case .shutdown: "relay shutting down"
        case .moved: "the match moved to another relay"
        }
    }
}

/// What a client sends to join a match.
public struct RelayJoin: Sendable, Hashable {
    /// Most channels a join lists.
    public static let maximumChannels = 32
    /// Most muted players a join lists.
    public static let maximumMutes = 128

    /// `RelayToken.text`.
    public var token: String
    public var participant: String
    /// Voice channels the member has started (channel 0 is implicit: everyone is in it).
    public var channels: [ChannelNumber]
    /// Media IDs of the players this member muted.
    public var muted: [MediaID]
    /// The names of `channels` the member gives, for the relay's logs and admin (at most one per
    /// channel it lists, each at most `RelayMessage.maximumChannelNameBytes`); may be empty.
    public var channelNames: [ChannelNumber: String]

    public init(
        token: String, participant: String, channels: [ChannelNumber], muted: [MediaID],
        channelNames: [ChannelNumber: String] = [:]
    ) {
        self.token = token
        self.participant = participant
        self.channels = channels
        self.muted = muted
        self.channelNames = channelNames
    }
}

/// A relay control message (`WireMessageType.relay`): byte 0 = wire version and type, byte 1 =
/// `RelayMessageKind`, then the kind's fields, big-endian. Strings are u16 length + UTF-8; lists
/// are u8 count + entries. Parsing is strict: no trailing bytes.
public enum RelayMessage: Sendable, Hashable {
    case join(RelayJoin)
    /// The join succeeded; `mediaID` is what the member's envelopes must name as sender.
    case joined(mediaID: MediaID)
    case refused(RelayRefusal)
    case startChannel(ChannelNumber)
    case stopChannel(ChannelNumber)
    case mute(MediaID)
    case unmute(MediaID)
    /// Keeps the membership (and NAT bindings) alive; the relay answers with `pong(nonce)`.
    case keepalive(nonce: UInt64)
    case pong(nonce: UInt64)
    case leave
    case kicked(RelayKickReason)
    /// The game server moved the member: its started channels are now exactly `channel`.
    case moved(channel: ChannelNumber)
    /// The game server muted (true) or unmuted the member at the relay.
    case serverMute(Bool)
    /// Attaches this TCP connection to the match's signalling as `participant` (the token's checks
    /// are those of `join`); independent of any media membership.
    case signalJoin(token: String, participant: String)
    /// The signalling join succeeded: the other signalling members of the match, sorted.
    case signalJoined(members: [String])
    /// Another participant attached to the match's signalling.
    case memberJoined(String)
    /// Another participant's signalling connection closed, left or went silent.
    case memberLeft(String)
    /// From a signalling member: deliver `payload` to `participant`'s signalling connection.
    case sendSignal(to: String, payload: [UInt8])
    /// To a signalling member: `payload` from `participant`.
    case signal(from: String, payload: [UInt8])
    /// From a member: where the player of `mediaID` stands (its own, or the relay refuses it), for
    /// the positional channels' ranges. Three big-endian IEEE 754 floats, finite.
    case position(mediaID: MediaID, VoicePosition)
    /// From a member: it hears `channel` positionally, only players within `range` (plus the
    /// relay's margin); a range of 0 hears the channel whole again.
    case hearingRange(channel: ChannelNumber, range: Float)
    /// From a member: the name of a channel it started (channels travel as numbers, a hash of the
    /// name), for the relay's logs and admin to show names. At most `maximumChannelNameBytes`.
    case channelName(ChannelNumber, String)
    /// To a client whose join reached a relay of a cluster that is not its match's home: join at
    /// `address` (HOST:PORT) instead, at once. It is not a member here.
    case redirect(address: String)
    /// To a member: its match moves to the relay at `address` (HOST:PORT; this one is draining).
    /// The client joins there, keeping this membership, and answers with the same message once
    /// it has; when every member has, this relay lets them all go (`kicked(.moved)`).
    case moving(address: String)

    /// Longest relay address a redirect carries, in UTF-8 bytes.
    public static let maximumAddressBytes = 255

    /// Longest channel name a relay is told, in UTF-8 bytes.
    public static let maximumChannelNameBytes = 64

    /// Most other members a `signalJoined` lists: what fits one TCP frame with the longest IDs.
    public static let maximumRosterEntries = 250
    /// Largest signal payload: what fits one TCP frame beside the header and the longest ID.
    public static let maximumSignalBytes = 65_000
    /// Largest join a client can send (`join` with the longest token, ID and lists; `signalJoin`
    /// is shorter): all a connection that has not joined has any reason to send in one frame.
    public static let maximumJoinBytes =
        2 + (2 + RelayToken.maximumTextBytes) + (2 + RelayToken.maximumIDBytes) + (1 + 2 * RelayJoin.maximumChannels)
        + (1 + 4 * RelayJoin.maximumMutes)
        + (1 + RelayJoin.maximumChannels * (2 + 2 + RelayMessage.maximumChannelNameBytes))

    package static let firstByte: UInt8 = wireVersion << 4 | WireMessageType.relay.rawValue

    public var kind: RelayMessageKind {
        switch self {
        case .join: .join
        case .joined: .joined
        case .refused: .refused
        case .startChannel: .startChannel
        case .stopChannel: .stopChannel
        case .mute: .mute
        case .unmute: .unmute
        case .keepalive: .keepalive
        case .pong: .pong
        case .leave: .leave
        case .kicked: .kicked
        case .moved: .moved
        case .serverMute: .serverMute
        case .signalJoin: .signalJoin
        case .signalJoined: .signalJoined
        case .memberJoined: .memberJoined
        case .memberLeft: .memberLeft
        case .sendSignal: .sendSignal
        case .signal: .signal
        case .position: .position
        case .hearingRange: .hearingRange
        case .channelName: .channelName
        case .redirect: .redirect
        case .moving: .moving
        }
    }

    /// The encoded message.
    public func serialized() throws(RelayMessageError) -> [UInt8] {
        var writer = ByteWriter()
        writer.uint8(Self.firstByte)
        writer.uint8(kind.rawValue)
        switch self {
        case .join(let join):
            try Self.check(join.token, field: "token", maximum: RelayToken.maximumTextBytes)
            try Self.check(join.participant, field: "participant", maximum: RelayToken.maximumIDBytes)
            guard join.channels.count <= RelayJoin.maximumChannels else {
                throw .tooManyEntries(
                    field: "channels", count: join.channels.count, maximum: RelayJoin.maximumChannels)
            }
            guard join.muted.count <= RelayJoin.maximumMutes else {
                throw .tooManyEntries(field: "muted players", count: join.muted.count, maximum: RelayJoin.maximumMutes)
            }
            writer.string(join.token)
            writer.string(join.participant)
            writer.uint8(UInt8(join.channels.count))
            for channel in join.channels { writer.channel(channel) }
            writer.uint8(UInt8(join.muted.count))
            for id in join.muted { writer.mediaID(id) }
            // Names come last, and only when there are any: a join without them ends at its mutes.
            let names = join.channelNames.filter { join.channels.contains($0.key) }.sorted { $0.key < $1.key }
            if !names.isEmpty {
                writer.uint8(UInt8(names.count))
                for (channel, name) in names {
                    try Self.check(name, field: "channel name", maximum: Self.maximumChannelNameBytes)
                    writer.channel(channel)
                    writer.string(name)
                }
            }
        case .joined(let mediaID): writer.mediaID(mediaID)
        case .refused(let reason): writer.uint8(reason.rawValue)
        case .startChannel(let channel), .stopChannel(let channel), .moved(let channel): writer.channel(channel)
        case .mute(let id), .unmute(let id): writer.mediaID(id)
        case .keepalive(let nonce), .pong(let nonce): writer.uint64(nonce)
        case .leave: break
        case .kicked(let reason): writer.uint8(reason.rawValue)
        case .serverMute(let on): writer.uint8(on ? 1 : 0)
        case .signalJoin(let token, let participant):
            try Self.check(token, field: "token", maximum: RelayToken.maximumTextBytes)
            try Self.check(participant, field: "participant", maximum: RelayToken.maximumIDBytes)
            writer.string(token)
            writer.string(participant)
        case .signalJoined(let members):
            guard members.count <= Self.maximumRosterEntries else {
                throw .tooManyEntries(field: "members", count: members.count, maximum: Self.maximumRosterEntries)
            }
            writer.uint16(UInt16(members.count))
            for member in members {
                try Self.check(member, field: "member", maximum: RelayToken.maximumIDBytes)
                writer.string(member)
            }
        case .memberJoined(let participant), .memberLeft(let participant):
            try Self.check(participant, field: "participant", maximum: RelayToken.maximumIDBytes)
            writer.string(participant)
        case .sendSignal(let participant, let payload), .signal(let participant, let payload):
            try Self.check(participant, field: "participant", maximum: RelayToken.maximumIDBytes)
            guard payload.count <= Self.maximumSignalBytes else {
                throw .payloadTooLarge(bytes: payload.count, maximum: Self.maximumSignalBytes)
            }
            writer.string(participant)
            writer.uint16(UInt16(payload.count))
            writer.append(payload)
        case .position(let mediaID, let position):
            guard position.isFinite else { throw .invalidNumber(field: "position") }
            writer.mediaID(mediaID)
            writer.uint32(position.x.bitPattern)
            writer.uint32(position.y.bitPattern)
            writer.uint32(position.z.bitPattern)
        case .hearingRange(let channel, let range):
            guard range.isFinite, range >= 0 else { throw .invalidNumber(field: "range") }
            writer.channel(channel)
            writer.uint32(range.bitPattern)
        case .channelName(let channel, let name):
            try Self.check(name, field: "channel name", maximum: Self.maximumChannelNameBytes)
            writer.channel(channel)
            writer.string(name)
        case .redirect(let address), .moving(let address):
            try Self.check(address, field: "address", maximum: Self.maximumAddressBytes)
            writer.string(address)
        }
        return writer.bytes
    }

    /// Parses an untrusted datagram (or TCP frame) that claims to be a relay message.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RelayMessageError) {
        let type: WireMessageType
        do { type = try wireMessageType(of: bytes) } catch { throw .wire(error) }
        guard type == .relay else { throw .wire(.wrongMessageType(expected: .relay, found: type)) }
        guard bytes.count >= 2 else { throw .wire(.truncatedHeader(needed: 2, available: bytes.count)) }
        guard let kind = RelayMessageKind(rawValue: bytes[1]) else { throw .unknownKind(bytes[1]) }
        var reader = ByteReader(Array(bytes[2...]))
        let wrongLength = RelayMessageError.wrongLength(kind: kind, bytes: bytes.count)
        switch kind {
        case .join:
            let token = try Self.readText(&reader, field: "token", maximum: RelayToken.maximumTextBytes, wrongLength)
            let participant = try Self.readText(
                &reader, field: "participant", maximum: RelayToken.maximumIDBytes, wrongLength)
            guard let channelCount = reader.uint8() else { throw wrongLength }
            guard channelCount <= RelayJoin.maximumChannels else {
                throw .tooManyEntries(field: "channels", count: Int(channelCount), maximum: RelayJoin.maximumChannels)
            }
            var channels: [ChannelNumber] = []
            for _ in 0..<channelCount {
                guard let channel = reader.channel() else { throw wrongLength }
                channels.append(channel)
            }
            guard let muteCount = reader.uint8() else { throw wrongLength }
            guard muteCount <= RelayJoin.maximumMutes else {
                throw .tooManyEntries(field: "muted players", count: Int(muteCount), maximum: RelayJoin.maximumMutes)
            }
            var muted: [MediaID] = []
            for _ in 0..<muteCount {
                guard let id = reader.mediaID() else { throw wrongLength }
                muted.append(id)
            }
            var names: [ChannelNumber: String] = [:]
            if !reader.isAtEnd {
                guard let nameCount = reader.uint8() else { throw wrongLength }
                guard nameCount <= channelCount else {
                    throw .tooManyEntries(field: "channel names", count: Int(nameCount), maximum: Int(channelCount))
                }
                for _ in 0..<nameCount {
                    guard let channel = reader.channel() else { throw wrongLength }
                    names[channel] = try Self.readText(
                        &reader, field: "channel name", maximum: Self.maximumChannelNameBytes, wrongLength)
                }
            }
            self = .join(
                RelayJoin(token: token, participant: participant, channels: channels, muted: muted, channelNames: names)
            )
        case .joined:
            guard let id = reader.mediaID() else { throw wrongLength }
            self = .joined(mediaID: id)
        case .refused:
            guard let code = reader.uint8() else { throw wrongLength }
            guard let reason = RelayRefusal(rawValue: code) else { throw .unknownReason(code) }
            self = .refused(reason)
        case .startChannel, .stopChannel, .moved:
            guard let channel = reader.channel() else { throw wrongLength }
            self =
                kind == .startChannel
                ? .startChannel(channel)
                : kind == .stopChannel
                    ? .stopChannel(channel)
                    : .moved(channel: channel)
        case .mute, .unmute:
            guard let id = reader.mediaID() else { throw wrongLength }
            self = kind == .mute ? .mute(id) : .unmute(id)
        case .keepalive, .pong:
            guard let nonce = reader.uint64() else { throw wrongLength }
            self = kind == .keepalive ? .keepalive(nonce: nonce) : .pong(nonce: nonce)
        case .leave: self = .leave
        case .kicked:
            guard let code = reader.uint8() else { throw wrongLength }
            guard let reason = RelayKickReason(rawValue: code) else { throw .unknownReason(code) }
            self = .kicked(reason)
        case .serverMute:
            guard let flag = reader.uint8(), flag <= 1 else { throw wrongLength }
            self = .serverMute(flag == 1)
        case .signalJoin:
            let token = try Self.readText(&reader, field: "token", maximum: RelayToken.maximumTextBytes, wrongLength)
            let participant = try Self.readText(
                &reader, field: "participant", maximum: RelayToken.maximumIDBytes, wrongLength)
            self = .signalJoin(token: token, participant: participant)
        case .signalJoined:
            guard let count = reader.uint16() else { throw wrongLength }
            guard count <= Self.maximumRosterEntries else {
                throw .tooManyEntries(field: "members", count: Int(count), maximum: Self.maximumRosterEntries)
            }
            var members: [String] = []
            for _ in 0..<count {
                members.append(
                    try Self.readText(&reader, field: "member", maximum: RelayToken.maximumIDBytes, wrongLength))
            }
            self = .signalJoined(members: members)
        case .memberJoined, .memberLeft:
            let participant = try Self.readText(
                &reader, field: "participant", maximum: RelayToken.maximumIDBytes, wrongLength)
            self = kind == .memberJoined ? .memberJoined(participant) : .memberLeft(participant)
        case .sendSignal, .signal:
            let participant = try Self.readText(
                &reader, field: "participant", maximum: RelayToken.maximumIDBytes, wrongLength)
            guard let length = reader.uint16() else { throw wrongLength }
            guard length <= Self.maximumSignalBytes else {
                throw .payloadTooLarge(bytes: Int(length), maximum: Self.maximumSignalBytes)
            }
            guard let payload = reader.take(Int(length)) else { throw wrongLength }
            self =
                kind == .sendSignal
                ? .sendSignal(to: participant, payload: Array(payload))
                : .signal(from: participant, payload: Array(payload))
        case .position:
            guard let mediaID = reader.mediaID(), let x = reader.float(), let y = reader.float(), let z = reader.float()
            else { throw wrongLength }
            let position = VoicePosition(x: x, y: y, z: z)
            guard position.isFinite else { throw .invalidNumber(field: "position") }
            self = .position(mediaID: mediaID, position)
        case .hearingRange:
            guard let channel = reader.channel(), let range = reader.float() else { throw wrongLength }
            guard range.isFinite, range >= 0 else { throw .invalidNumber(field: "range") }
            self = .hearingRange(channel: channel, range: range)
        case .channelName:
            guard let channel = reader.channel() else { throw wrongLength }
            let name = try Self.readText(
                &reader, field: "channel name", maximum: Self.maximumChannelNameBytes, wrongLength)
            self = .channelName(channel, name)
        case .redirect, .moving:
            let address = try Self.readText(&reader, field: "address", maximum: Self.maximumAddressBytes, wrongLength)
            self = kind == .redirect ? .redirect(address: address) : .moving(address: address)
        }
        guard reader.isAtEnd else { throw wrongLength }
    }

    /// Whether `text` is a non-empty string of at most `maximum` UTF-8 bytes, as every text field must be.
    package static func isValidText(_ text: String, maximum: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maximum
    }

    private static func check(_ text: String, field: String, maximum: Int) throws(RelayMessageError) {
        guard isValidText(text, maximum: maximum) else { throw .invalidText(field: field) }
    }

    /// `check` for a string read from `reader`.
    private static func readText(
        _ reader: inout ByteReader, field: String, maximum: Int, _ wrongLength: RelayMessageError
    ) throws(RelayMessageError) -> String {
        guard let text = reader.string() else { throw wrongLength }
        try check(text, field: field, maximum: maximum)
        return text
    }

    /// Parses a byte array (convenience for tests and clients).
    public init(parsing bytes: [UInt8]) throws(RelayMessageError) {
        var result: Result<RelayMessage, RelayMessageError> = .failure(.wire(.truncatedHeader(needed: 1, available: 0)))
        bytes.withUnsafeBytes { raw in
            do throws(RelayMessageError) { result = .success(try RelayMessage(parsing: raw)) } catch {
                result = .failure(error)
            }
        }
        self = try result.get()
    }
}
