/// Why a relay control message could not be parsed or written.
public enum RelayMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Byte 0 is not a relay message of this wire version.
    case wire(WireError)
    /// Byte 1 names no relay message kind.
    case unknownKind(UInt8)
    /// The message ends before its fields do, or has bytes left after them.
    case wrongLength(kind: RelayMessageKind, bytes: Int)
    /// A text field is not UTF-8, empty where it must not be, or too long.
    case invalidText(field: String)
    /// A list has more entries than the relay accepts.
    case tooManyEntries(field: String, count: Int, maximum: Int)
    /// A reason code this build does not know.
    case unknownReason(UInt8)
    /// A signal payload larger than one relay frame carries.
    case payloadTooLarge(bytes: Int, maximum: Int)
    /// A number that is not finite, or out of its field's range (a negative hearing range).
    case invalidNumber(field: String)

    public var description: String {
        switch self {
        case .wire(let error): "relay message: \(error)"
        case .unknownKind(let kind):
            "unknown relay message kind \(kind); the peer runs an incompatible release"
        case .wrongLength(let kind, let bytes):
            "relay \(kind) message of \(bytes) bytes does not match its fields (truncated or trailing bytes)"
        case .invalidText(let field): "relay message field \(field) is empty, too long or not UTF-8"
        case .tooManyEntries(let field, let count, let maximum):
            "relay message lists \(count) \(field); at most \(maximum) are allowed"
        case .unknownReason(let reason): "relay message carries unknown reason code \(reason)"
        case .payloadTooLarge(let bytes, let maximum):
            "signal of \(bytes) bytes exceeds the relay's maximum of \(maximum); split it or send it another way"
        case .invalidNumber(let field):
            "relay message field \(field) is not a finite number in its range"
        }
    }
}
