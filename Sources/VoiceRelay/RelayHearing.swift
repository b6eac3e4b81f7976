import VoiceCore
import VoiceWire

/// One channel a member hears positionally: its range, and the players within it now.
struct RelayHearing {
    let channel: ChannelNumber
    let range: HearingRange
    /// Media IDs of the players within range (with the margin for those already in it).
    var audible: Set<MediaID>
}
