/// Why bytes that arrived on a signalling link are not a valid frame, or not a valid frame at this
/// point of the link's life. Each malformation has its own case; the link is closed after any of them.
public enum SignallingFrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The length field exceeds what a frame (or a frame of this kind) may hold.
    case oversize(kind: SignallingFrame.Kind?, length: Int, maximum: Int)
    /// The length field is 0: not even a type byte follows.
    case emptyFrame
    /// The type byte is not one this build knows.
    case unknownFrameType(UInt8)
    /// The frame (or the stream, when it ended mid-frame) holds fewer bytes than it needs.
    case truncated(kind: SignallingFrame.Kind?, needed: Int, available: Int)
    /// A hello without the link's magic: whatever answered is not a voicechat link.
    case notASignallingLink
    /// A hello of a format version this build does not read.
    case unsupportedVersion(UInt8)
    /// A hello whose participant ID is empty, too long or not UTF-8.
    case invalidParticipant(String)
    /// A frame that carries no payload came with one.
    case unexpectedPayload(kind: SignallingFrame.Kind, bytes: Int)
    /// A frame's text is not valid UTF-8.
    case invalidText(kind: SignallingFrame.Kind)
    /// Something other than a hello came first.
    case helloExpected(got: SignallingFrame.Kind)
    /// A second hello on a link that already said hello.
    case repeatedHello

    public var description: String {
        switch self {
        case .oversize(let kind, let length, let maximum):
            "\(kind.map { "a \($0) frame" } ?? "a frame") of \(length) bytes exceeds the maximum of \(maximum)"
                + "; the peer is not a compatible voicechat"
        case .emptyFrame:
            "a frame with length 0 (no type byte); the peer is not a compatible voicechat"
        case .unknownFrameType(let type):
            "unknown frame type \(type); the peer runs an incompatible voicechat release"
        case .truncated(let kind, let needed, let available):
            "\(kind.map { "a \($0) frame" } ?? "a frame") is cut short: \(available) of \(needed) bytes"
        case .notASignallingLink:
            "the peer's first frame is not a voicechat hello; check that the address is a voicechat listener"
        case .unsupportedVersion(let version):
            "the peer speaks link version \(version), this build speaks \(SignallingFrame.version); "
                + "run the same voicechat release on both hosts"
        case .invalidParticipant(let reason):
            "invalid participant ID in hello: \(reason)"
        case .unexpectedPayload(let kind, let bytes):
            "a \(kind) frame carries \(bytes) bytes but must be empty"
        case .invalidText(let kind):
            "the text of a \(kind) frame is not valid UTF-8"
        case .helloExpected(let kind):
            "the peer sent a \(kind) frame before its hello"
        case .repeatedHello:
            "the peer said hello twice"
        }
    }
}
