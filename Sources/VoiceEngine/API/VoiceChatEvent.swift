import VoiceCore
import VoiceTransport
import VoiceWire

/// A 1:1 call's identifier: 32 lowercase hexadecimal digits, chosen by the caller.
public typealias CallID = String

/// What happens to 1:1 calls, as `VoiceChatService.events` reports it.
public enum VoiceChatEvent: Sendable, Hashable {
    /// Someone would like to talk: answer with `accept(_:)` or `deny(_:)`.
    case invitation(call: CallID, from: ParticipantID)
    /// The call is up: voice flows on `path`.
    case started(call: CallID, with: ParticipantID, path: RealTimePathKind)
    /// The call never started.
    case didNotStart(call: CallID, with: ParticipantID, reason: CallEndReason)
    /// The call was up and has stopped.
    case stopped(call: CallID, with: ParticipantID, reason: CallEndReason)
    /// Voice to this participant now takes another path (failover, or back to a better one).
    case pathChanged(call: CallID, with: ParticipantID, path: RealTimePathKind?)
    /// A signalling message was refused; nothing it said was used.
    case signallingRejected(from: ParticipantID, error: SignallingError)
}

/// A player's state in one voice channel (GameKit's `GKVoiceChat.PlayerState`).
public enum PlayerState: String, Sendable, Hashable, Codable {
    /// Known to the match, no real-time path yet.
    case connecting
    /// Reachable, and has started this channel.
    case connected
    /// Not in this channel: reachable but has not started it (or stopped it), left the match, or
    /// unreachable past the timeout.
    case disconnected
    /// Speech is arriving from the player in this channel.
    case speaking
    /// The player stopped speaking.
    case silent
}

/// How game data travels between players.
public enum GameDataMode: String, Sendable, Hashable, Codable {
    /// Ordered and delivered, through the app's reliable channel; up to 87 KB.
    case reliable
    /// Best-effort on the real-time path; up to 1000 bytes.
    case unreliable
}

/// What happens in a match, as `Match.events` reports it.
public enum MatchEvent: Sendable, Hashable {
    /// A player's state in a channel changed.
    case playerState(channel: String, player: ParticipantID, state: PlayerState)
    /// A player's connection to this participant changed (any channel).
    case playerConnection(player: ParticipantID, connected: Bool)
    /// Voice to this player now takes another path.
    case pathChanged(player: ParticipantID, path: RealTimePathKind?)
    /// The game's own data arrived.
    case data([UInt8], from: ParticipantID, mode: GameDataMode)
    /// A signalling message was refused; nothing it said was used.
    case signallingRejected(from: ParticipantID, error: SignallingError)
    /// The relay transport `path` (`.relayUDP` or `.relayTCP`) refused or removed this player, or
    /// could not start; voice through it stops until the cause is dealt with.
    case relayFailed(path: RealTimePathKind, RelayFailure)
    /// The game server muted (true) or unmuted this participant through the relay: while muted,
    /// nothing it says reaches anyone, on any path.
    case serverMuted(Bool)
    /// The game server moved this participant to the channel named (nil: one it never opened, or
    /// none): that channel alone stays started and has the microphone.
    case moved(channel: String?)
}
