import Dispatch
import Synchronization
import VoiceEngine

/// Carries signalling and real-time data between engines in one process, as an app's own
/// channel would between machines: in order, on one queue of its own (so an engine is never
/// re-entered from its own send), and held for a participant until they connect (a match
/// introduces its engine to players whose handlers are not set up yet).
final class InProcessSwitchboard: Sendable {
    struct Endpoint: Sendable {
        var received: @Sendable ([UInt8], ParticipantID) -> Void
        var receivedRealTime: @Sendable ([UInt8], ParticipantID) -> Void
    }

    private struct Delivery {
        var data: [UInt8]
        var sender: ParticipantID
        var realTime: Bool
    }

    private let queue = DispatchQueue(label: "voicechat.switchboard")
    private let state = Mutex<(endpoints: [ParticipantID: Endpoint], held: [ParticipantID: [Delivery]])>(([:], [:]))

    func connect(_ participant: ParticipantID, _ endpoint: Endpoint) {
        queue.async { [self] in
            let held = state.withLock { state in
                state.endpoints[participant] = endpoint
                return state.held.removeValue(forKey: participant) ?? []
            }
            for delivery in held { Self.hand(delivery, to: endpoint) }
        }
    }

    func client(for participant: ParticipantID) -> InProcessClient {
        InProcessClient(participantID: participant, switchboard: self)
    }

    fileprivate func deliver(_ data: [UInt8], from sender: ParticipantID, to receiver: ParticipantID, realTime: Bool) {
        let delivery = Delivery(data: data, sender: sender, realTime: realTime)
        queue.async { [self] in
            let endpoint = state.withLock { state -> Endpoint? in
                if let endpoint = state.endpoints[receiver] { return endpoint }
                // Real-time data for someone not there yet is lost, as on a network.
                if !realTime { state.held[receiver, default: []].append(delivery) }
                return nil
            }
            if let endpoint { Self.hand(delivery, to: endpoint) }
        }
    }

    private static func hand(_ delivery: Delivery, to endpoint: Endpoint) {
        if delivery.realTime {
            endpoint.receivedRealTime(delivery.data, delivery.sender)
        } else {
            endpoint.received(delivery.data, delivery.sender)
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
