import VoiceCore
import VoiceWire

/// The sender-key state of one of this participant's channels.
struct OwnSenderKey {
    var current: SenderKey
    /// A new epoch distributed but not yet used for sealing.
    var pending: SenderKey?
    /// Who has not confirmed the pending epoch yet.
    var awaiting: Set<ParticipantID> = []
    /// When the sender switches to the pending epoch even without every confirmation.
    var switchDeadline: MediaTime = 0
}
