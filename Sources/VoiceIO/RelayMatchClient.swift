import Synchronization
import VoiceCore
import VoiceEngine
import VoiceRelayClient

/// A match's `VoiceChatClient` whose signalling goes through the relay: what the engine sends
/// becomes a relay signal, signals become `Match.received`, and the relay's roster becomes the
/// match's players (`addPlayers` / `removePlayers`).
///
/// Events that arrive before the match is attached wait, in order, and are replayed on `attach`.
public final class RelayMatchClient: VoiceChatClient {
    private struct Attachment {
        var match: Match?
        var waiting: [RelaySignallingEvent] = []
    }

    public let participantID: ParticipantID
    private let attachment = Mutex(Attachment())
    private let signalling = Mutex<RelaySignallingClient?>(nil)

    private let observer: (@Sendable (RelaySignallingEvent) -> Void)?

    private init(participant: ParticipantID, observer: (@Sendable (RelaySignallingEvent) -> Void)?) {
        participantID = participant
        self.observer = observer
    }

    /// Connects to the relay's signalling service and joins with `token`.
    ///
    /// - Parameter onEvent: sees every event too (after the match has), e.g. to report a refused
    ///   token or a lost relay; never called under the engine's lock.
    public static func connect(
        host: String, port: Int, otherRelays: [String] = [], token: String, participant: ParticipantID,
        onEvent: (@Sendable (RelaySignallingEvent) -> Void)? = nil
    ) async throws(RelayClientError) -> RelayMatchClient {
        let client = RelayMatchClient(participant: participant, observer: onEvent)
        let signalling = try await RelaySignallingClient.connect(
            host: host, port: port, otherRelays: otherRelays, token: token, participant: participant.rawValue
        ) { event in client.handle(event) }
        client.signalling.withLock { $0 = signalling }
        return client
    }

    public var state: RelaySignallingState? { signalling.withLock { $0 }?.state }

    public func send(_ data: [UInt8], to participant: ParticipantID) {
        signalling.withLock { $0 }?.send(data, to: participant.rawValue)
    }

    /// Routes what the relay reports to `match`, starting with what arrived before it existed.
    public func attach(_ match: Match) {
        attachment.withLock { attachment in
            attachment.match = match
            for event in attachment.waiting { Self.apply(event, to: match) }
            attachment.waiting = []
        }
    }

    public func close() async { await signalling.withLock { $0 }?.close() }

    private func handle(_ event: RelaySignallingEvent) {
        attachment.withLock { attachment in
            if let match = attachment.match {
                Self.apply(event, to: match)
            } else {
                attachment.waiting.append(event)
            }
        }
        observer?(event)
    }

    private static func apply(_ event: RelaySignallingEvent, to match: Match) {
        switch event {
        case .joined(let members): try? match.addPlayers(members.map { ParticipantID($0) })
        case .memberJoined(let member): try? match.addPlayers([ParticipantID(member)])
        case .memberLeft(let member): match.removePlayers([ParticipantID(member)])
        case .signal(let sender, let payload): match.received(payload, from: ParticipantID(sender))
        case .rejoined, .refused, .lost, .kicked: break
        }
    }
}
