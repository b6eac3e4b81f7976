import Foundation
import VoiceWire

/// The answer to one request: `{"id": 1, "ok": true}`, `{"id": 1, "ok": false, "error": "…"}`,
/// with a snapshot for `stats` and the command list for `help`.
public struct ControlReply: Sendable, Hashable, Codable {
    public var id: JSONValue?
    public var ok: Bool
    /// What was wrong and what to do, when `ok` is false.
    public var error: String?
    public var snapshot: SessionSnapshot?
    public var commands: [ControlCommandHelp]?
    /// `subscribe`: the interval in force.
    public var intervalMilliseconds: Int?

    public init(
        id: JSONValue?, ok: Bool, error: String? = nil, snapshot: SessionSnapshot? = nil,
        commands: [ControlCommandHelp]? = nil, intervalMilliseconds: Int? = nil
    ) {
        self.id = id
        self.ok = ok
        self.error = error
        self.snapshot = snapshot
        self.commands = commands
        self.intervalMilliseconds = intervalMilliseconds
    }

    public static func failure(id: JSONValue?, _ error: ControlError) -> Self {
        ControlReply(id: id, ok: false, error: error.description)
    }
}

/// What a subscription pushes: `{"event": "stats", "snapshot": {…}}`.
public struct ControlPush: Sendable, Hashable, Codable {
    public var event: String
    public var snapshot: SessionSnapshot

    public init(snapshot: SessionSnapshot) {
        event = "stats"
        self.snapshot = snapshot
    }
}
