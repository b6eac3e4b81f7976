/// One unit on a signalling link's TCP stream.
///
/// On the wire every frame is a 4-byte big-endian length (of what follows), a 1-byte type and the
/// type's payload. The length comes first so a receiver knows how much to wait for and can refuse an
/// oversized frame before buffering it.
public enum SignallingFrame: Sendable, Hashable {
    /// The first frame each side sends: the link's magic, format version and this side's participant ID.
    case hello(participant: String)
    /// The engine's signalling: delivered reliably and in order.
    case signalling([UInt8])
    /// The engine's real-time datagrams carried over the link (the app-carried path).
    case realTime([UInt8])
    /// The sender is closing the link on purpose.
    case bye
    /// The listener will not take this call; the text says why and what to do.
    case refused(reason: String)

    /// The frame type byte.
    public enum Kind: UInt8, Sendable, Hashable, CustomStringConvertible {
        case hello = 1
        case signalling = 2
        case realTime = 3
        case bye = 4
        case refused = 5

        public var description: String {
            switch self {
            case .hello: "hello"
            case .signalling: "signalling"
            case .realTime: "real-time"
            case .bye: "bye"
            case .refused: "refused"
            }
        }
    }

    /// The format version this build writes and reads.
    public static let version: UInt8 = 1
    /// "VCSL": tells a voicechat link from anything else that answers on the port.
    public static let magic: [UInt8] = Array("VCSL".utf8)
    /// The largest length field accepted: room for the engine's largest signalling message.
    public static let maximumLength = 256 * 1024
    /// Real-time frames carry one datagram; anything larger is not one.
    public static let maximumRealTimeBytes = 1500
    public static let maximumParticipantBytes = 256
    /// The longest hello, kind included: what a listener takes from a caller who has not said who it is.
    public static let maximumHelloLength = 1 + magic.count + 1 + maximumParticipantBytes
    public static let maximumReasonBytes = 1024
    /// Length field plus type byte.
    public static let headerBytes = 5

    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .signalling: .signalling
        case .realTime: .realTime
        case .bye: .bye
        case .refused: .refused
        }
    }

    /// The frame as it goes on the wire.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedByteCount)
        write { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// How many bytes `write(_:)` hands over.
    public var encodedByteCount: Int { Self.headerBytes + payloadByteCount }

    /// Hands the frame as it goes on the wire to `append`, piece by piece, so that a sender fills
    /// the buffer it gives the socket with no intermediate copies.
    public func write(_ append: (UnsafeRawBufferPointer) -> Void) {
        var header = (UInt32(payloadByteCount + 1).bigEndian, kind.rawValue)
        withUnsafeBytes(of: &header.0) { append($0) }
        withUnsafeBytes(of: &header.1) { append($0) }
        switch self {
        case .hello(let participant):
            Self.magic.withUnsafeBytes(append)
            withUnsafeBytes(of: Self.version) { append($0) }
            var name = participant
            name.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        case .signalling(let bytes), .realTime(let bytes): bytes.withUnsafeBytes(append)
        case .bye: break
        case .refused(let reason): Array(reason.utf8.prefix(Self.maximumReasonBytes)).withUnsafeBytes(append)
        }
    }

    private var payloadByteCount: Int {
        switch self {
        case .hello(let participant): Self.magic.count + 1 + participant.utf8.count
        case .signalling(let bytes), .realTime(let bytes): bytes.count
        case .bye: 0
        case .refused(let reason): min(reason.utf8.count, Self.maximumReasonBytes)
        }
    }

    /// Parses the type byte and payload of one frame (what follows its length field).
    public init(kind byte: UInt8, payload: ArraySlice<UInt8>) throws(SignallingFrameError) {
        guard let kind = Kind(rawValue: byte) else { throw .unknownFrameType(byte) }
        switch kind {
        case .hello:
            let fixed = Self.magic.count + 1
            guard payload.count >= fixed else { throw .truncated(kind: kind, needed: fixed, available: payload.count) }
            guard Array(payload.prefix(Self.magic.count)) == Self.magic else { throw .notASignallingLink }
            let version = payload[payload.startIndex + Self.magic.count]
            guard version == Self.version else { throw .unsupportedVersion(version) }
            let name = payload.dropFirst(fixed)
            guard !name.isEmpty else { throw .invalidParticipant("the participant ID is empty") }
            guard name.count <= Self.maximumParticipantBytes else {
                throw .invalidParticipant(
                    "the participant ID has \(name.count) bytes; at most \(Self.maximumParticipantBytes) are allowed")
            }
            guard let text = String(validating: name, as: UTF8.self) else {
                throw .invalidParticipant("the participant ID is not valid UTF-8")
            }
            self = .hello(participant: text)
        case .signalling:
            self = .signalling(Array(payload))
        case .realTime:
            guard payload.count <= Self.maximumRealTimeBytes else {
                throw .oversize(kind: .realTime, length: payload.count, maximum: Self.maximumRealTimeBytes)
            }
            self = .realTime(Array(payload))
        case .bye:
            guard payload.isEmpty else { throw .unexpectedPayload(kind: kind, bytes: payload.count) }
            self = .bye
        case .refused:
            guard payload.count <= Self.maximumReasonBytes else {
                throw .oversize(kind: .refused, length: payload.count, maximum: Self.maximumReasonBytes)
            }
            guard let text = String(validating: payload, as: UTF8.self) else { throw .invalidText(kind: kind) }
            self = .refused(reason: text)
        }
    }
}
