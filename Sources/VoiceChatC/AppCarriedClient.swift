import CVoiceChatABI
import VoiceCore
import VoiceEngine

/// The `VoiceChatClient` of calls and matches whose signalling the game carries: what the engine
/// would send becomes an event the game delivers (`VC_EVENT_SIGNALLING_OUT`,
/// `VC_EVENT_REAL_TIME_OUT`), tagged with the match's handle (0 for calls).
final class AppCarriedClient: VoiceChatClient {
    let participantID: ParticipantID
    let offersRealTimeData: Bool
    private let events: EngineEvents
    private let match: UInt

    init(participant: ParticipantID, offersRealTimeData: Bool, events: EngineEvents, match: UInt) {
        participantID = participant
        self.offersRealTimeData = offersRealTimeData
        self.events = events
        self.match = match
    }

    func send(_ data: [UInt8], to participant: ParticipantID) {
        events.post(EngineEventRecord(type: VC_EVENT_SIGNALLING_OUT, match: match, player: participant, data: data))
    }

    func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {
        events.post(EngineEventRecord(type: VC_EVENT_REAL_TIME_OUT, match: match, player: participant, data: data))
    }
}
