import NIOConcurrencyHelpers
import NIOPosix
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// One signalling client and everything it reported.
final class SignallingPeer: Sendable {
    let participant: String
    let client: RelaySignallingClient
    private let events: NIOLockedValueBox<[RelaySignallingEvent]>

    init(
        participant: String, port: Int, token: String,
        timing: RelaySignallingTiming = SignallingPeer.fastTiming
    ) async throws {
        self.participant = participant
        let events = NIOLockedValueBox<[RelaySignallingEvent]>([])
        self.events = events
        client = try await RelaySignallingClient.connect(
            host: "127.0.0.1", port: port, token: token, participant: participant,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, timing: timing
        ) { event in events.withLockedValue { $0.append(event) } }
    }

    /// Leave grace short enough for tests to see departures quickly.
    static var fastTiming: RelaySignallingTiming {
        var timing = RelaySignallingTiming()
        timing.leaveGrace = .milliseconds(300)
        return timing
    }

    var receivedEvents: [RelaySignallingEvent] { events.withLockedValue { $0 } }

    /// Payloads received, with their senders.
    var signals: [(from: String, payload: [UInt8])] {
        receivedEvents.compactMap { event in
            if case .signal(let from, let payload) = event { return (from, payload) }
            return nil
        }
    }

    func waitUntilJoined() async throws {
        try await eventually("\(participant) joins the signalling") { self.client.state == .joined }
    }
}

extension RelayHarness {
    func attach(
        _ participant: String, relay: RelayServer, token: String? = nil,
        timing: RelaySignallingTiming = SignallingPeer.fastTiming
    ) async throws -> SignallingPeer {
        try await SignallingPeer(
            participant: participant, port: relay.localPort ?? 0, token: try token ?? self.token(participant),
            timing: timing)
    }

    func close(_ peers: SignallingPeer...) async {
        for peer in peers { await peer.client.close() }
    }
}
