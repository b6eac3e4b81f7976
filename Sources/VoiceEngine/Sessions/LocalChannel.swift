import VoiceCore
import VoiceMedia
import VoiceWire

/// One of this participant's voice channels in a session. A class for the reason `RemotePeer` is:
/// every packet received looks its channel up.
final class LocalChannel {
    let number: ChannelNumber
    let name: String
    /// The mixer's ID for it (unique across sessions).
    let mixerChannel: MixerChannelID
    var isStarted: Bool
    /// Players this participant muted in this channel.
    var mutedPlayers: Set<MediaID> = []
    /// Set when the channel is positional.
    var proximity: ProximitySettings?

    init(number: ChannelNumber, name: String, mixerChannel: MixerChannelID, isStarted: Bool = false) {
        self.number = number
        self.name = name
        self.mixerChannel = mixerChannel
        self.isStarted = isStarted
    }
}
