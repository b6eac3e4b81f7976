import Synchronization
import VoiceEngine

/// Carries signalling and real-time data between engines in one process, as an app's own
/// channel would between machines: each participant's client hands what it sends straight to the
/// addressee's handlers.
final class InProcessSwitchboard: Sendable {
    struct Endpoint: Sendable {
        var received: @Sendable ([UInt8], ParticipantID) -> Void
        var receivedRealTime: @Sendable ([UInt8], ParticipantID) -> Void
    }

    private let endpoints = Mutex<[ParticipantID: Endpoint]>([:])

    func connect(_ participant: ParticipantID, _ endpoint: Endpoint) {
        endpoints.withLock { $0[participant] = endpoint }
    }

    func client(for participant: ParticipantID) -> InProcessClient {
        InProcessClient(participantID: participant, switchboard: self)
    }

    fileprivate func deliver(_ data: [UInt8], from sender: ParticipantID, to receiver: ParticipantID, realTime: Bool) {
        // Looked up under the lock, called outside it: the receiver may send straight back.
        guard let endpoint = endpoints.withLock({ $0[receiver] }) else { return }
        if realTime {
            endpoint.receivedRealTime(data, sender)
        } else {
            endpoint.received(data, sender)
        }
    }
}

/// One participant's side of an `InProcessSwitchboard`.
final class InProcessClient: VoiceChatClient {
    let participantID: ParticipantID
    private let switchboard: InProcessSwitchboard

    fileprivate init(participantID: ParticipantID, switchboard: InProcessSwitchboard) {
        self.participantID = participantID
        self.switchboard = switchboard
    }

    var offersRealTimeData: Bool { true }

    func send(_ data: [UInt8], to participant: ParticipantID) {
        switchboard.deliver(data, from: participantID, to: participant, realTime: false)
    }

    func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {
        switchboard.deliver(data, from: participantID, to: participant, realTime: true)
    }
}
