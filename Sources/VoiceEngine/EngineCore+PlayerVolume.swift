import VoiceCore
import VoiceWire

extension EngineCore {
    /// A player's own volume in every session's mixing, by the media ID their voice carries.
    func setVolume(_ volume: Float, of player: ParticipantID) throws(VoiceChatError) {
        do {
            try mixer.setVolume(volume, player: MediaID(participant: player).rawValue)
        } catch {
            throw .outOfRange("the volume of \"\(player)\", \(volume), is outside 0…2")
        }
    }

    func volume(of player: ParticipantID) -> Float {
        mixer.volume(ofPlayer: MediaID(participant: player).rawValue)
    }
}
