import Foundation

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

/// JSON lines as the control socket and the stats file write them: compact, keys sorted, one
/// object per line ending in "\n".
public enum ControlJSON {
    public static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Everything encoded here is finite by construction (levels are floored), so this does not
        // fail; should it, the reader still gets a line it can parse.
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else {
            return "{\"ok\":false,\"error\":\"internal error: could not encode the reply\"}\n"
        }
        return text + "\n"
    }
}
