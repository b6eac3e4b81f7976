import VoiceCore
import VoiceEngine
import VoiceTransport

/// Joins each match's relay with a `RelayLink`: what an engine is given to reach relays.
public struct RelayLinks: RelayConnector {
    public init() {}

    public func connection(
        options: RelayOptions, participant: ParticipantID, matchID: String, forcedPath: RealTimePathKind?
    ) -> any RelayConnection {
        RelayLink(options: options, participant: participant, matchID: matchID, forcedPath: forcedPath)
    }
}
