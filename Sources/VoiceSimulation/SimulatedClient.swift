import VoiceCore
import VoiceEngine

/// A participant's app in a `SimulatedWorld`: carries signalling and (optionally) real-time data.
public final class SimulatedClient: VoiceChatClient {
    public let participantID: ParticipantID
    public let offersRealTimeData: Bool
    private let world: SimulatedWorld

    public init(_ participant: ParticipantID, world: SimulatedWorld, offersRealTime: Bool = false) {
        participantID = participant
        offersRealTimeData = offersRealTime
        self.world = world
    }

    public func send(_ data: [UInt8], to participant: ParticipantID) {
        world.post(.init(bytes: data, from: participantID, to: participant, realTime: false))
    }

    public func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {
        world.post(.init(bytes: data, from: participantID, to: participant, realTime: true))
    }
}
