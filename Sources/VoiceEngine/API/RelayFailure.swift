import VoiceWire

/// Why one of a match's relay transports stopped carrying voice (or never started to).
public enum RelayFailure: Sendable, Hashable, CustomStringConvertible {
    /// The relay refused the join: a bad or expired token (give the match a new one with
    /// `Match.updateRelayToken`), a full match or relay, or too many channels or mutes.
    case refused(RelayRefusal)
    /// The relay removed this player (the game server kicked it, a newer connection of the same
    /// player replaced it, or the relay is shutting down).
    case kicked(RelayKickReason)
    /// The relay client could not start: the address does not resolve, or no socket could be opened.
    case unreachable(String)

    public var description: String {
        switch self {
        case .refused(let reason): "the relay refused to admit this player: \(reason)"
        case .kicked(let reason): "the relay removed this player: \(reason)"
        case .unreachable(let reason): "the relay cannot be used: \(reason)"
        }
    }
}
