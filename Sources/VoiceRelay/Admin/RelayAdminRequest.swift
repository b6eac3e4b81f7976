import VoiceCore
import VoiceWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One request on `voicechat relay --admin-socket`: `{"id": 1, "command": "kick", "match": "arena",
/// "player": "bob"}`, a JSON object a line.
package struct RelayAdminRequest: Codable, Sendable, Hashable {
    package enum Command: String, Codable, Sendable, CaseIterable {
        case matches
        case players
        case kick
        case mute
        case unmute
        case move
        case position
        case releasePosition = "release-position"
        case stats
        case cluster
        case drain

        /// What each needs besides "command".
        package var summary: String {
            switch self {
            case .matches: "list the matches and their players"
            case .players: "list one match's players: {\"match\": \"arena\"}"
            case .kick: "remove a player from a match: {\"match\": \"arena\", \"player\": \"bob\"}"
            case .mute: "drop a player's voice at the relay: {\"match\": \"arena\", \"player\": \"bob\"}"
            case .unmute: "let a server-muted player's voice through again: {\"match\": …, \"player\": …}"
            case .move:
                "make a channel the player's only started channel (\"\" for none): "
                    + "{\"match\": \"arena\", \"player\": \"bob\", \"channel\": \"team\"}"
            case .position:
                "place a player for positional channels; its own reports are ignored from then on: "
                    + "{\"match\": \"arena\", \"player\": \"bob\", \"x\": 10, \"y\": 0, \"z\": -4}"
            case .releasePosition:
                "let a player's own position reports count again: {\"match\": \"arena\", \"player\": \"bob\"}"
            case .stats: "the relay's totals: joins, refusals, packets, drops"
            case .cluster: "the cluster's live nodes: address, load, draining, matches"
            case .drain:
                "move every match to other relays of the cluster, then stop (as SIGTERM does to a cluster relay)"
            }
        }
    }

    package var id: JSONValue?
    package var command: Command
    package var match: String?
    package var player: String?
    /// A channel's name as the players start it; the relay sees only its number.
    package var channel: String?
    /// `position`'s coordinates, in the game's units.
    package var x: Double?
    package var y: Double?
    package var z: Double?

    package init(
        id: JSONValue? = nil, command: Command, match: String? = nil, player: String? = nil, channel: String? = nil,
        x: Double? = nil, y: Double? = nil, z: Double? = nil
    ) {
        self.id = id
        self.command = command
        self.match = match
        self.player = player
        self.channel = channel
        self.x = x
        self.y = y
        self.z = z
    }
}
