import VoiceCore
import VoiceMedia
import VoiceWire

extension EngineCore {
    /// A player's own volume in every session's mixing, by the media ID their voice carries.
    func setVolume(_ volume: Float, of player: ParticipantID) throws(VoiceChatError) {
        try Self.checkVolume(volume, of: player)
        try? mixer.setVolume(volume, player: player.mediaID)
    }

    /// Refuses a player's volume the mixer would (`VoiceMixer.playerVolumes`).
    static func checkVolume(_ volume: Float, of player: ParticipantID) throws(VoiceChatError) {
        guard volume.isFinite, VoiceMixer.playerVolumes.contains(volume) else {
            throw .outOfRange("the volume of \"\(player)\", \(volume), is outside 0…2")
        }
    }

    func volume(of player: ParticipantID) -> Float {
        mixer.volume(ofPlayer: player.mediaID)
    }
}
