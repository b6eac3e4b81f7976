import VoiceCore
import VoiceMedia

/// What a listener keeps per remote stream besides the stream itself. A class: every frame reads
/// each one, and a copy would retain all it holds.
final class ReceivingStream {
    let stream: VoiceReceiveStream
    let participant: ParticipantID
    /// The mixer's ID of the stream's channel.
    let mixerChannel: MixerChannelID
    var wasSpeaking = false
    var reports: ReportSchedule

    init(stream: VoiceReceiveStream, participant: ParticipantID, mixerChannel: MixerChannelID, reports: ReportSchedule)
    {
        self.stream = stream
        self.participant = participant
        self.mixerChannel = mixerChannel
        self.reports = reports
    }
}
