import Foundation
import VoiceCore

/// The JSON shape of every signalling message: a version, a type, and the fields that type uses.
private struct WireForm: Codable {
    var v: Int
    var type: String
    var call: String?
    var match: String?
    var key: String?
    var candidates: [String]?
    var realTime: Bool?
    var keys: [WireKey]?
    var reason: String?
    var channels: [WireChannel]?
    var channel: WireChannel?
    var data: String?
}

private struct WireKey: Codable {
    var channel: Int
    var epoch: Int
    var key: String
}

private struct WireChannel: Codable {
    var number: Int
    var name: String
    var started: Bool
}

extension SignallingMessage {
    /// The message as the bytes the app carries.
    package func encoded() -> [UInt8] {
        var form = WireForm(v: Self.version, type: typeName)
        switch self {
        case .invite(let call, let offer):
            form.call = call
            form.apply(offer)
        case .accept(let call, let offer, let keys):
            form.call = call
            form.apply(offer)
            form.keys = keys.map(WireKey.init)
        case .end(let call, let reason):
            form.call = call
            form.reason = reason.rawValue
        case .keys(let session, let keys), .keysInstalled(let session, let keys):
            form.apply(session)
            form.keys = keys.map(WireKey.init)
        case .hello(let match, let offer, let channels):
            form.match = match
            form.apply(offer)
            form.channels = channels.map(WireChannel.init)
        case .channel(let match, let announcement):
            form.match = match
            form.channel = WireChannel(announcement)
        case .bye(let match):
            form.match = match
        case .gameData(let match, let data):
            form.match = match
            form.data = Data(data).base64EncodedString()
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a value built from checked fields cannot fail.
        return (try? Array(encoder.encode(form))) ?? []
    }

    /// Parses and validates a message from an untrusted peer.
    package init(decoding bytes: [UInt8]) throws(SignallingError) {
        guard bytes.count <= Self.maximumBytes else { throw .oversize(bytes: bytes.count, maximum: Self.maximumBytes) }
        let form: WireForm
        do {
            form = try JSONDecoder().decode(WireForm.self, from: Data(bytes))
        } catch {
            throw .malformed(Self.describe(error))
        }
        guard form.v == Self.version else { throw .unsupportedVersion(form.v) }
        switch form.type {
        case "invite":
            self = .invite(call: try form.callID(), offer: try form.offer())
        case "accept":
            self = .accept(call: try form.callID(), offer: try form.offer(), keys: try form.wrappedKeys())
        case "end":
            guard let raw = form.reason, let reason = CallEndReason(rawValue: raw) else {
                throw .invalidField("reason", reason: "expected one of \(Self.reasonNames)")
            }
            self = .end(call: try form.callID(), reason: reason)
        case "keys":
            self = .keys(try form.session(), try form.wrappedKeys())
        case "keys-installed":
            self = .keysInstalled(try form.session(), try form.wrappedKeys(allowEmptyKey: true))
        case "hello":
            let channels = try (form.channels ?? []).map { channel throws(SignallingError) in
                try channel.announcement()
            }
            guard channels.count <= Self.maximumKeys else {
                throw .invalidField("channels", reason: "more than \(Self.maximumKeys) channels")
            }
            self = .hello(match: try form.matchID(), offer: try form.offer(), channels: channels)
        case "channel":
            guard let channel = form.channel else { throw .invalidField("channel", reason: "missing") }
            self = .channel(match: try form.matchID(), try channel.announcement())
        case "bye":
            self = .bye(match: try form.matchID())
        case "game-data":
            guard let text = form.data, let data = Data(base64Encoded: text) else {
                throw .invalidField("data", reason: "missing or not base64")
            }
            guard data.count <= Self.maximumGameDataBytes else {
                throw .invalidField("data", reason: "\(data.count) bytes; reliable game data is at most 87 KB")
            }
            self = .gameData(match: try form.matchID(), Array(data))
        default:
            throw .unknownType(String(form.type.prefix(40)))
        }
    }

    private static var reasonNames: String {
        [CallEndReason.hungUp, .denied, .timedOut, .noRealTimePath, .connectionLost, .shutDown]
            .map(\.rawValue).joined(separator: ", ")
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "not JSON (\(context.debugDescription))"
        case DecodingError.keyNotFound(let key, _): "missing field \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "field \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        default: "not a signalling object"
        }
    }
}

extension WireForm {
    init(v: Int, type: String) {
        self.v = v
        self.type = type
    }

    mutating func apply(_ offer: SessionOffer) {
        key = Data(offer.publicKey).base64EncodedString()
        candidates = offer.candidates.map(\.description)
        realTime = offer.offersRealTime
    }

    mutating func apply(_ session: SessionReference) {
        switch session {
        case .call(let id): call = id
        case .match(let id): match = id
        }
    }

    func callID() throws(SignallingError) -> String {
        guard let call else { throw .invalidField("call", reason: "missing") }
        guard call.utf8.count == 32, call.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { throw .invalidField("call", reason: "a call ID is 32 lowercase hexadecimal digits") }
        return call
    }

    func matchID() throws(SignallingError) -> String {
        guard let match, !match.isEmpty else { throw .invalidField("match", reason: "missing or empty") }
        guard match.utf8.count <= SignallingMessage.maximumIdentifierBytes else {
            throw .invalidField("match", reason: "longer than \(SignallingMessage.maximumIdentifierBytes) bytes")
        }
        return match
    }

    func session() throws(SignallingError) -> SessionReference {
        if call != nil { return .call(try callID()) }
        if match != nil { return .match(try matchID()) }
        throw .invalidField("call", reason: "either a call or a match is required")
    }

    func offer() throws(SignallingError) -> SessionOffer {
        guard let key, let publicKey = Data(base64Encoded: key), publicKey.count == 32 else {
            throw .invalidField("key", reason: "expected a 32-byte X25519 public key in base64")
        }
        let texts = candidates ?? []
        guard texts.count <= SignallingMessage.maximumCandidates else {
            throw .invalidField("candidates", reason: "more than \(SignallingMessage.maximumCandidates) addresses")
        }
        var addresses: [PeerAddress] = []
        for text in texts {
            do {
                addresses.append(try PeerAddress(parsing: text))
            } catch {
                throw .invalidField("candidates", reason: "\"\(text.prefix(64))\" is not a host:port address")
            }
        }
        return SessionOffer(publicKey: Array(publicKey), candidates: addresses, offersRealTime: realTime ?? false)
    }

    func wrappedKeys(allowEmptyKey: Bool = false) throws(SignallingError) -> [WrappedSenderKey] {
        guard let keys else { throw .invalidField("keys", reason: "missing") }
        guard keys.count <= SignallingMessage.maximumKeys else {
            throw .invalidField("keys", reason: "more than \(SignallingMessage.maximumKeys) keys")
        }
        return try keys.map { key throws(SignallingError) in
            guard (0...Int(UInt16.max)).contains(key.channel) else {
                throw .invalidField("keys.channel", reason: "\(key.channel) is not a channel number")
            }
            guard (0...255).contains(key.epoch) else {
                throw .invalidField("keys.epoch", reason: "\(key.epoch) is not an epoch (0…255)")
            }
            guard let bytes = Data(base64Encoded: key.key), allowEmptyKey || (1...128).contains(bytes.count) else {
                throw .invalidField("keys.key", reason: "expected a wrapped key in base64")
            }
            return WrappedSenderKey(
                channel: ChannelNumber(rawValue: UInt16(key.channel)), epoch: UInt8(key.epoch), bytes: Array(bytes))
        }
    }
}

extension WireKey {
    init(_ key: WrappedSenderKey) {
        self.init(channel: Int(key.channel.rawValue), epoch: Int(key.epoch), key: Data(key.bytes).base64EncodedString())
    }
}

extension WireChannel {
    init(_ announcement: ChannelAnnouncement) {
        self.init(number: Int(announcement.number.rawValue), name: announcement.name, started: announcement.isStarted)
    }

    func announcement() throws(SignallingError) -> ChannelAnnouncement {
        guard (1...Int(UInt16.max)).contains(number) else {
            throw .invalidField("channel.number", reason: "\(number) is not a voice channel number (1…65535)")
        }
        guard !name.isEmpty, name.utf8.count <= SignallingMessage.maximumIdentifierBytes else {
            throw .invalidField("channel.name", reason: "empty or longer than 256 bytes")
        }
        guard ChannelNumber(named: name).rawValue == UInt16(number) else {
            throw .invalidField("channel.number", reason: "\(number) is not the number of channel \"\(name)\"")
        }
        return ChannelAnnouncement(number: ChannelNumber(rawValue: UInt16(number)), name: name, isStarted: started)
    }
}
