import VoiceCore
import VoiceWire

/// A change a game makes every frame (where players stand, how loud they are, who is muted, the
/// talk key), handed to the engine without waiting for its thread: the caller checks the
/// arguments, the order waits in a lock-free queue, and the engine thread applies it at its next
/// turn, before the frame. Orders for a match, channel or player that is gone by then do nothing.
public enum EngineOrder: Sendable {
    /// This participant's place in `match` and, when given, the direction to its right.
    case position(VoicePosition, right: VoicePosition?, match: String)
    /// Where the game has another player stand in `match`.
    case playerPosition(VoicePosition, player: ParticipantID, match: String)
    /// A channel's volume, 0…1.
    case channelVolume(Float, channel: ChannelNumber, match: String)
    /// A player muted or heard in one channel.
    case playerMuted(Bool, player: ParticipantID, channel: ChannelNumber, match: String)
    /// A player's own volume everywhere, 0…2.
    case playerVolume(Float, player: ParticipantID)
    case microphoneMuted(Bool)
    case pushToTalk(Bool)
    case talkKeyDown(Bool)

    /// Refuses what the engine would refuse, so that a queued order cannot fail for its arguments.
    func validate() throws(VoiceChatError) {
        switch self {
        case .position(let position, let right, _): _ = try EngineCore.checkedPlacement(position, right: right)
        case .playerPosition(let position, _, _): _ = try EngineCore.checkedPlacement(position, right: nil)
        case .channelVolume(let volume, _, _): try EngineCore.checkChannelVolume(volume)
        case .playerVolume(let volume, let player): try EngineCore.checkVolume(volume, of: player)
        case .playerMuted, .microphoneMuted, .pushToTalk, .talkKeyDown: break
        }
    }
}

extension EngineCore {
    /// Applies an order handed in; what no longer exists is skipped.
    func apply(_ order: EngineOrder, now: MediaTime) {
        switch order {
        case .position(let position, let right, let match):
            try? setPosition(position, right: right, of: nil, match: match, now: now)
        case .playerPosition(let position, let player, let match):
            try? setPosition(position, of: player, match: match, now: now)
        case .channelVolume(let volume, let channel, let match):
            try? setChannel(channel, volume: volume, match: match)
        case .playerMuted(let muted, let player, let channel, let match):
            try? setPlayer(player, muted: muted, channel: channel, match: match)
        case .playerVolume(let volume, let player):
            try? setVolume(volume, of: player)
        case .microphoneMuted(let muted): isMicrophoneMuted = muted
        case .pushToTalk(let on): pushToTalk = on
        case .talkKeyDown(let down): isTalkKeyDown = down
        }
    }
}
