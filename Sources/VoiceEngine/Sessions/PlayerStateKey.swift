import VoiceCore
import VoiceWire

/// Whose state in which channel a reported player state is.
struct PlayerStateKey: Hashable {
    var channel: ChannelNumber
    var player: ParticipantID
}
