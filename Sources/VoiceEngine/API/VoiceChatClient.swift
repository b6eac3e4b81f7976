import VoiceCore

/// What the embedding app provides so the engine can reach other participants.
///
/// The engine never opens a signalling connection of its own: the app already has one (its game
/// server, matchmaking socket, or platform service) and carries the engine's signalling over it,
/// as `GKVoiceChatClient` does. The engine hands out opaque byte strings; the app delivers them and
/// gives what arrives back to `VoiceChatService.received(_:from:)` (or the match's equivalent).
///
/// The engine calls these methods from its own threads; implementations must not block for long.
public protocol VoiceChatClient: AnyObject, Sendable {
    /// This participant's own ID, as the other participants' apps know it.
    var participantID: ParticipantID { get }

    /// Delivers `data` to `participant` reliably and in order. Signalling depends on both.
    func send(_ data: [UInt8], to participant: ParticipantID)

    /// Whether `sendRealTime(_:to:)` can be used when no direct path works.
    var offersRealTimeData: Bool { get }

    /// Delivers `data` to `participant` best-effort, as soon as possible: the app-carried path.
    /// Only called when `offersRealTimeData` is true.
    func sendRealTime(_ data: [UInt8], to participant: ParticipantID)
}

extension VoiceChatClient {
    public var offersRealTimeData: Bool { false }

    public func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {}
}
