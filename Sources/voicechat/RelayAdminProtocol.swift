import Foundation
import VoiceControl
import VoiceEngine
import VoiceRelay

/// One request on `voicechat relay --admin-socket`: `{"id": 1, "command": "kick", "match": "arena",
/// "player": "bob"}`, a JSON object a line.
struct RelayAdminRequest: Codable, Sendable, Hashable {
    enum Command: String, Codable, Sendable, CaseIterable {
        case matches
        case players
        case kick
        case mute
        case unmute
        case move
        case stats

        /// What each needs besides "command".
        var summary: String {
            switch self {
            case .matches: "list the matches and their players"
            case .players: "list one match's players: {\"match\": \"arena\"}"
            case .kick: "remove a player from a match: {\"match\": \"arena\", \"player\": \"bob\"}"
            case .mute: "drop a player's voice at the relay: {\"match\": \"arena\", \"player\": \"bob\"}"
            case .unmute: "let a server-muted player's voice through again: {\"match\": …, \"player\": …}"
            case .move:
                "make a channel the player's only started channel (\"\" for none): "
                    + "{\"match\": \"arena\", \"player\": \"bob\", \"channel\": \"team\"}"
            case .stats: "the relay's totals: joins, refusals, packets, drops"
            }
        }
    }

    var id: JSONValue?
    var command: Command
    var match: String?
    var player: String?
    /// A channel's name as the players start it; the relay sees only its number.
    var channel: String?
}

/// The reply to one request.
struct RelayAdminReply: Codable, Sendable, Hashable {
    struct Match: Codable, Sendable, Hashable {
        var match: String
        var players: [String]
    }

    struct Player: Codable, Sendable, Hashable {
        var player: String
        var mediaID: UInt32
        /// Channel numbers (the relay does not know names).
        var channels: [UInt16]
        var serverMuted: Bool
        var overUDP: Bool
        var overTCP: Bool
        var sending: Bool
        var packetsReceived: Int
        var packetsForwarded: Int
    }

    struct Statistics: Codable, Sendable, Hashable {
        var matches: Int
        var players: Int
        var sending: Int
        var joins: Int
        var refusals: [String: Int]
        var packetsReceived: Int
        var packetsForwarded: Int
        var drops: [String: Int]
    }

    var id: JSONValue?
    var ok: Bool
    var error: String?
    var matches: [Match]?
    var players: [Player]?
    var statistics: Statistics?
}

/// Answers admin request lines with the relay's admin API. Pure apart from the relay: the socket
/// runs it per line, and tests run it directly.
struct RelayAdminDispatcher: Sendable {
    let admin: RelayAdmin

    func answer(_ line: [UInt8]) async -> String {
        let request: RelayAdminRequest
        do {
            request = try JSONDecoder().decode(RelayAdminRequest.self, from: Data(line))
        } catch {
            return ControlJSON.line(RelayAdminReply(id: nil, ok: false, error: Self.describe(error)))
        }
        do {
            return ControlJSON.line(try await perform(request))
        } catch {
            // RelayAdminError and RelayAdminFailure both say what went wrong in words.
            return ControlJSON.line(RelayAdminReply(id: request.id, ok: false, error: "\(error)"))
        }
    }

    private func perform(_ request: RelayAdminRequest) async throws -> RelayAdminReply {
        var reply = RelayAdminReply(id: request.id, ok: true)
        switch request.command {
        case .matches:
            reply.matches = try await admin.matches().map {
                RelayAdminReply.Match(match: $0.match, players: $0.participants.sorted())
            }
        case .players:
            let match = try required(request.match, "match", request)
            reply.players = try await admin.participants(match: match).map {
                RelayAdminReply.Player(
                    player: $0.participant, mediaID: $0.mediaID, channels: $0.channels, serverMuted: $0.serverMuted,
                    overUDP: $0.overUDP, overTCP: $0.overTCP, sending: $0.isSending,
                    packetsReceived: $0.counters.packetsReceived, packetsForwarded: $0.counters.packetsForwarded)
            }.sorted { $0.player < $1.player }
        case .kick:
            let (match, player) = try member(request)
            try await admin.kick(participant: player, match: match)
        case .mute, .unmute:
            let (match, player) = try member(request)
            try await admin.setServerMute(request.command == .mute, participant: player, match: match)
        case .move:
            let (match, player) = try member(request)
            let channel = try required(request.channel, "channel", request)
            let number = channel.isEmpty ? 0 : channelNumber(named: channel)
            try await admin.move(participant: player, match: match, toChannel: number)
        case .stats:
            let statistics = try await admin.statistics()
            reply.statistics = RelayAdminReply.Statistics(
                matches: statistics.matches, players: statistics.participants, sending: statistics.currentSenders,
                joins: statistics.joins,
                refusals: Dictionary(uniqueKeysWithValues: statistics.refusals.map { ("\($0.key)", $0.value) }),
                packetsReceived: statistics.counters.packetsReceived,
                packetsForwarded: statistics.counters.packetsForwarded,
                drops: Dictionary(
                    uniqueKeysWithValues: RelayDropReason.allCases.compactMap { reason in
                        let count = statistics.counters.drops(reason)
                        return count > 0 ? (reason.description, count) : nil
                    }))
        }
        return reply
    }

    private func member(_ request: RelayAdminRequest) throws(RelayAdminFailure) -> (match: String, player: String) {
        (try required(request.match, "match", request), try required(request.player, "player", request))
    }

    private func required(_ value: String?, _ field: String, _ request: RelayAdminRequest) throws(RelayAdminFailure)
        -> String
    {
        guard let value else { throw RelayAdminFailure("\(request.command.rawValue) needs field \"\(field)\"") }
        return value
    }

    /// A decoding error in words a person typing JSON can act on.
    private static func describe(_ error: any Error) -> String {
        let commands = RelayAdminRequest.Command.allCases.map(\.rawValue).joined(separator: ", ")
        switch error {
        case DecodingError.keyNotFound(let key, _):
            return "missing field \"\(key.stringValue)\"; the commands are \(commands)"
        case DecodingError.dataCorrupted(let context) where context.codingPath.last?.stringValue == "command":
            return "unknown command; the commands are \(commands)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let field = context.codingPath.last?.stringValue ?? "the request"
            return "field \"\(field)\" has the wrong type; send {\"command\": \"players\", \"match\": \"arena\"}"
        default:
            return "the line is not a JSON object; send one request a line, e.g. {\"command\": \"matches\"}"
        }
    }
}

/// Why an admin request was refused, in words.
struct RelayAdminFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
