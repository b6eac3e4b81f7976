import VoiceCore
import VoiceEngine

/// Why a control operation was refused. The session's state is unchanged; every message says what
/// was wrong and what to do instead.
public enum ControlError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The session has no channel of that name.
    case unknownChannel(String, available: [String])
    /// No remote participant of that name.
    case unknownPlayer(ParticipantID, available: [ParticipantID])
    /// Channels exist only in matches.
    case noChannels(operation: String)
    /// Positions and positional channels exist only in matches.
    case matchOnly(operation: String)
    /// A match control given no channels cannot act on "every channel".
    case noChannelsInMatch(operation: String)
    /// A volume outside 0…1 or not a number.
    case volumeOutOfRange(Float)
    case playerVolumeOutOfRange(Float)
    /// The engine refused the operation.
    case engine(VoiceChatError)
    /// A request line that is not a valid request.
    case badRequest(String)
    /// The control socket could not be set up or used.
    case socket(String)
    /// The stats file could not be opened or written.
    case statsFile(String)

    public var description: String {
        switch self {
        case .unknownChannel(let name, let available):
            available.isEmpty
                ? "no channel \"\(name)\"; this session has no channels"
                : "no channel \"\(name)\"; use one of: \(available.joined(separator: ", "))"
        case .unknownPlayer(let name, let available):
            available.isEmpty
                ? "no player \"\(name)\"; nobody else is in the session yet"
                : "no player \"\(name)\"; use one of: \(available.map(\.rawValue).joined(separator: ", "))"
        case .noChannels(let operation):
            "\(operation) needs a match: a 1:1 call has no channels (leave \"channel\" out to act on the call)"
        case .matchOnly(let operation):
            "\(operation) needs a match: positions and positional channels belong to a match's channels, not a 1:1 call"
        case .noChannelsInMatch(let operation):
            "\(operation) needs a channel, and this match is controlled without any; join a channel first"
        case .volumeOutOfRange(let volume):
            "volume \(volume) is outside 0…1; give a number from 0 (silent) to 1 (full)"
        case .playerVolumeOutOfRange(let volume):
            "a player's volume of \(volume) is outside 0…2; give a number from 0 (silent) through 1 (as sent) to 2"
        case .engine(let error):
            "the voice engine refused: \(error)"
        case .badRequest(let reason):
            reason
        case .socket(let reason):
            reason
        case .statsFile(let reason):
            reason
        }
    }
}
