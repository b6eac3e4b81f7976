import VoiceCore

/// A message from one relay of a cluster to another about a match both hold part of: the match's
/// voice for the receiving relay's players, its players' state, or a relay's arrival in the match.
///
/// Layout (`WireMessageType.peer`): byte 0 = wire version and type, byte 1 = kind, u64 stamp (the
/// sender's clock, rising), u16-length strings node, address and match, the body, and the first
/// `RelayPeerKey.tagBytes` bytes of HMAC-SHA256 over everything before them. Bodies:
/// - voice: the sealed envelope as its sender sent it (still sealed: relays cannot open it);
/// - members: u8 count, then per member u32 media ID, u16-length participant, u8 count + u16
///   channels, u8 count + u32 muted media IDs, u8 count + (u16 channel, f32 range) hearing ranges,
///   u8 0 or 1 + three f32 position;
/// - gone: u8 count + u32 media IDs;
/// - hello: nothing;
/// - signalling, signalling gone: u8 count + u16-length participants (attached to the match's
///   signalling on the sender, or no longer);
/// - signal: u16-length sender and destination participants, u16 length + payload.
public struct RelayPeerMessage: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable {
        case voice = 1
        case members = 2
        case gone = 3
        case hello = 4
        case signalling = 5
        case signallingGone = 6
        case signal = 7
    }

    public enum Body: Sendable, Hashable {
        /// A sealed envelope from a player of the sending relay.
        case voice([UInt8])
        /// The state of some of the sending relay's players in the match (up to `maximumMembers`).
        case members([RelayPeerMember])
        /// Players who left the sending relay's part of the match.
        case gone([MediaID])
        /// The sender holds part of the match from now on: it wants the receiver's players.
        case hello
        /// Participants attached to the match's signalling on the sending relay (up to `maximumNames`).
        case signalling([String])
        /// Participants no longer attached there.
        case signallingGone([String])
        /// A signal from a participant attached on the sending relay to one attached on the receiver.
        case signal(from: String, to: String, payload: [UInt8])
    }

    public static let firstByte: UInt8 = wireVersion << 4 | WireMessageType.peer.rawValue
    /// Players a members message carries at most: one fits a datagram whatever their lists.
    public static let maximumMembers = 8
    public static let maximumNodeBytes = 64
    public static let maximumAddressBytes = 128
    public static let maximumGone = 255
    /// Participants a signalling message names at most.
    public static let maximumNames = 16
    /// The largest signal that crosses between relays: with its header, a message fits a datagram.
    public static let maximumSignalBytes = 1024
    /// The largest message: what a relay reads a datagram into.
    public static let maximumBytes = 2048

    /// The sending relay's node name.
    public var node: String
    /// HOST:PORT the sending relay is reached at.
    public var address: String
    public var match: String
    /// Rising with each message its sender sends: what is older than what was heard of a player
    /// is not taken.
    public var stamp: UInt64
    public var body: Body

    public init(node: String, address: String, match: String, stamp: UInt64, body: Body) {
        self.node = node
        self.address = address
        self.match = match
        self.stamp = stamp
        self.body = body
    }

    public var kind: Kind {
        switch body {
        case .voice: .voice
        case .members: .members
        case .gone: .gone
        case .hello: .hello
        case .signalling: .signalling
        case .signallingGone: .signallingGone
        case .signal: .signal
        }
    }

    /// The message's bytes with `key`'s tag.
    public func sealed(with key: RelayPeerKey) throws(RelayPeerMessageError) -> [UInt8] {
        var writer = ByteWriter()
        writer.uint8(Self.firstByte)
        writer.uint8(kind.rawValue)
        writer.uint64(stamp)
        try Self.check(node, "node", maximum: Self.maximumNodeBytes)
        try Self.check(address, "address", maximum: Self.maximumAddressBytes)
        try Self.check(match, "match", maximum: RelayToken.maximumIDBytes)
        writer.string(node)
        writer.string(address)
        writer.string(match)
        switch body {
        case .voice(let envelope):
            guard !envelope.isEmpty else { throw .malformed(reason: "an empty envelope") }
            writer.append(envelope)
        case .members(let members):
            guard members.count <= Self.maximumMembers else {
                throw .malformed(reason: "\(members.count) members, more than \(Self.maximumMembers)")
            }
            writer.uint8(UInt8(members.count))
            for member in members { try Self.write(member, to: &writer) }
        case .gone(let gone):
            guard gone.count <= Self.maximumGone else { throw .malformed(reason: "\(gone.count) players gone") }
            writer.uint8(UInt8(gone.count))
            for mediaID in gone { writer.mediaID(mediaID) }
        case .hello: break
        case .signalling(let names), .signallingGone(let names):
            guard names.count <= Self.maximumNames else {
                throw .malformed(reason: "\(names.count) participants, more than \(Self.maximumNames)")
            }
            writer.uint8(UInt8(names.count))
            for name in names {
                try Self.check(name, "participant", maximum: RelayToken.maximumIDBytes)
                writer.string(name)
            }
        case .signal(let from, let to, let payload):
            try Self.check(from, "sender", maximum: RelayToken.maximumIDBytes)
            try Self.check(to, "destination", maximum: RelayToken.maximumIDBytes)
            guard payload.count <= Self.maximumSignalBytes else {
                throw .malformed(reason: "a signal of \(payload.count) bytes, more than \(Self.maximumSignalBytes)")
            }
            writer.string(from)
            writer.string(to)
            writer.uint16(UInt16(payload.count))
            writer.append(payload)
        }
        var bytes = writer.bytes
        bytes.append(contentsOf: key.tag(of: bytes[...]))
        guard bytes.count <= Self.maximumBytes else {
            throw .malformed(reason: "\(bytes.count) bytes, more than \(Self.maximumBytes)")
        }
        return bytes
    }

    /// Checks the tag against each of `keys` (the cluster's secret, and the one being retired),
    /// then reads the message.
    public init(opening bytes: [UInt8], keys: [RelayPeerKey]) throws(RelayPeerMessageError) {
        let tagStart = bytes.count - RelayPeerKey.tagBytes
        guard tagStart >= 2, bytes[0] == Self.firstByte else { throw .malformed(reason: "not a relay peer message") }
        let message = bytes[..<tagStart]
        let tag = bytes[tagStart...]
        guard keys.contains(where: { $0.isValid(tag: tag, of: message) }) else { throw .unauthenticated }
        var reader = ByteReader(Array(message))
        _ = reader.uint8()
        guard let rawKind = reader.uint8(), let kind = Kind(rawValue: rawKind) else {
            throw .malformed(reason: "unknown kind \(bytes[1])")
        }
        guard let stamp = reader.uint64(), let node = reader.string(), let address = reader.string(),
            let match = reader.string()
        else { throw .malformed(reason: "truncated header") }
        try Self.check(node, "node", maximum: Self.maximumNodeBytes)
        try Self.check(address, "address", maximum: Self.maximumAddressBytes)
        try Self.check(match, "match", maximum: RelayToken.maximumIDBytes)
        let body: Body
        switch kind {
        case .voice:
            guard let envelope = reader.take(reader.remaining), !envelope.isEmpty else {
                throw .malformed(reason: "an empty envelope")
            }
            body = .voice(Array(envelope))
        case .members:
            guard let count = reader.uint8(), Int(count) <= Self.maximumMembers else {
                throw .malformed(reason: "more members than \(Self.maximumMembers)")
            }
            var members: [RelayPeerMember] = []
            for _ in 0..<count { members.append(try Self.readMember(&reader)) }
            body = .members(members)
        case .gone:
            guard let count = reader.uint8() else { throw .malformed(reason: "truncated") }
            var gone: [MediaID] = []
            for _ in 0..<count {
                guard let mediaID = reader.mediaID() else { throw .malformed(reason: "truncated") }
                gone.append(mediaID)
            }
            body = .gone(gone)
        case .hello: body = .hello
        case .signalling, .signallingGone:
            guard let count = reader.uint8(), Int(count) <= Self.maximumNames else {
                throw .malformed(reason: "more participants than \(Self.maximumNames)")
            }
            var names: [String] = []
            for _ in 0..<count {
                guard let name = reader.string() else { throw .malformed(reason: "truncated participant") }
                try Self.check(name, "participant", maximum: RelayToken.maximumIDBytes)
                names.append(name)
            }
            body = kind == .signalling ? .signalling(names) : .signallingGone(names)
        case .signal:
            guard let from = reader.string(), let to = reader.string(), let length = reader.uint16(),
                Int(length) <= Self.maximumSignalBytes, let payload = reader.take(Int(length))
            else { throw .malformed(reason: "truncated or oversized signal") }
            try Self.check(from, "sender", maximum: RelayToken.maximumIDBytes)
            try Self.check(to, "destination", maximum: RelayToken.maximumIDBytes)
            body = .signal(from: from, to: to, payload: Array(payload))
        }
        guard reader.isAtEnd else { throw .malformed(reason: "bytes after its fields") }
        self.init(node: node, address: address, match: match, stamp: stamp, body: body)
    }

    /// The bytes `member` takes in a members message.
    public static func encodedBytes(of member: RelayPeerMember) -> Int {
        4 + 2 + member.participant.utf8.count + 1 + 2 * member.channels.count + 1 + 4 * member.muted.count + 1
            + 6 * member.hearingRanges.count + 1 + (member.position == nil ? 0 : 12)
    }

    private static func check(_ text: String, _ field: String, maximum: Int) throws(RelayPeerMessageError) {
        guard (1...maximum).contains(text.utf8.count) else {
            throw .malformed(reason: "\(field) of \(text.utf8.count) bytes (1…\(maximum))")
        }
    }

    private static func write(_ member: RelayPeerMember, to writer: inout ByteWriter) throws(RelayPeerMessageError) {
        try check(member.participant, "participant", maximum: RelayToken.maximumIDBytes)
        guard member.channels.count <= RelayJoin.maximumChannels, member.muted.count <= RelayJoin.maximumMutes,
            member.hearingRanges.count <= RelayJoin.maximumChannels + 1
        else { throw .malformed(reason: "a member with more channels, mutes or ranges than a join") }
        writer.mediaID(member.mediaID)
        writer.string(member.participant)
        writer.uint8(UInt8(member.channels.count))
        for channel in member.channels { writer.channel(channel) }
        writer.uint8(UInt8(member.muted.count))
        for mediaID in member.muted { writer.mediaID(mediaID) }
        writer.uint8(UInt8(member.hearingRanges.count))
        for (channel, range) in member.hearingRanges.sorted(by: { $0.key < $1.key }) {
            guard range > 0, range.isFinite else { throw .malformed(reason: "hearing range \(range)") }
            writer.channel(channel)
            writer.uint32(range.bitPattern)
        }
        if let position = member.position {
            guard position.isFinite else { throw .malformed(reason: "position \(position)") }
            writer.uint8(1)
            writer.uint32(position.x.bitPattern)
            writer.uint32(position.y.bitPattern)
            writer.uint32(position.z.bitPattern)
        } else {
            writer.uint8(0)
        }
    }

    private static func readMember(_ reader: inout ByteReader) throws(RelayPeerMessageError) -> RelayPeerMember {
        guard let mediaID = reader.mediaID(), let participant = reader.string() else {
            throw .malformed(reason: "truncated member")
        }
        try check(participant, "participant", maximum: RelayToken.maximumIDBytes)
        var member = RelayPeerMember(mediaID: mediaID, participant: participant)
        guard let channels = reader.uint8(), Int(channels) <= RelayJoin.maximumChannels else {
            throw .malformed(reason: "too many channels")
        }
        for _ in 0..<channels {
            guard let channel = reader.channel() else { throw .malformed(reason: "truncated member") }
            member.channels.append(channel)
        }
        guard let muted = reader.uint8(), Int(muted) <= RelayJoin.maximumMutes else {
            throw .malformed(reason: "too many mutes")
        }
        for _ in 0..<muted {
            guard let id = reader.mediaID() else { throw .malformed(reason: "truncated member") }
            member.muted.append(id)
        }
        guard let ranges = reader.uint8(), Int(ranges) <= RelayJoin.maximumChannels + 1 else {
            throw .malformed(reason: "too many hearing ranges")
        }
        for _ in 0..<ranges {
            guard let channel = reader.channel(), let range = reader.float() else {
                throw .malformed(reason: "truncated member")
            }
            guard range > 0, range.isFinite else { throw .malformed(reason: "hearing range \(range)") }
            member.hearingRanges[channel] = range
        }
        guard let hasPosition = reader.uint8(), hasPosition <= 1 else { throw .malformed(reason: "position flag") }
        if hasPosition == 1 {
            guard let x = reader.float(), let y = reader.float(), let z = reader.float() else {
                throw .malformed(reason: "truncated position")
            }
            let position = VoicePosition(x: x, y: y, z: z)
            guard position.isFinite else { throw .malformed(reason: "position not finite") }
            member.position = position
        }
        return member
    }
}
