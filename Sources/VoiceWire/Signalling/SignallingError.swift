import VoiceCore

/// Why a signalling message was refused. The message is dropped and counted; nothing it said is
/// trusted, and the call or match it named goes on as before.
public enum SignallingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message is larger than any valid message can be.
    case oversize(bytes: Int, maximum: Int)
    /// The bytes are not a JSON object of the signalling format.
    case malformed(String)
    /// The message speaks a signalling version this build does not.
    case unsupportedVersion(Int)
    /// The message type is not one this build knows.
    case unknownType(String)
    /// A required field is missing or has the wrong shape.
    case invalidField(String, reason: String)
    /// The message names a call this participant does not know (ended long ago, or never existed).
    case unknownCall(String)
    /// The message names a match this participant is not in.
    case unknownMatch(String)
    /// The message came from someone who is not the call's peer or a player of the match.
    case notAParticipant(ParticipantID)
    /// The message is valid but makes no sense in the call's current state (e.g. an accept for a
    /// call that was already accepted).
    case wrongState(call: String, state: String, message: String)
    /// A key in the message could not be used (bad public key, wrapped key that does not open).
    case badKey(String)

    public var description: String {
        switch self {
        case .oversize(let bytes, let maximum):
            "signalling message of \(bytes) bytes exceeds the maximum of \(maximum); the peer is misbehaving"
        case .malformed(let reason):
            "malformed signalling message: \(reason)"
        case .unsupportedVersion(let version):
            "signalling version \(version) is not supported (this build speaks \(SignallingMessage.version)); "
                + "the peer runs an incompatible release"
        case .unknownType(let type):
            "unknown signalling message type \"\(type)\""
        case .invalidField(let field, let reason):
            "signalling field \"\(field)\" is invalid: \(reason)"
        case .unknownCall(let call):
            "signalling names unknown call \(call)"
        case .unknownMatch(let match):
            "signalling names unknown match \"\(match)\""
        case .notAParticipant(let participant):
            "signalling from \"\(participant)\", who is not a participant of the call or match it names"
        case .wrongState(let call, let state, let message):
            "\(message) for call \(call) in state \(state) was ignored"
        case .badKey(let reason):
            "unusable key in signalling: \(reason)"
        }
    }
}
