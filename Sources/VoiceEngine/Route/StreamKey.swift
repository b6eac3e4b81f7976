import VoiceWire

/// A stream's identity inside a session: whose voice, in which channel.
struct StreamKey: Hashable {
    var sender: MediaID
    var channel: ChannelNumber
}
