import VoiceCore
import VoiceWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Answers admin request lines with the relay's admin API. Pure apart from the relay: the socket
/// runs it per line, and tests run it directly.
package struct RelayAdminDispatcher: Sendable {
    package let admin: RelayAdmin
    /// The cluster's side, for a relay in a cluster.
    package let cluster: RelayClusterAdmin?

    package init(admin: RelayAdmin, cluster: RelayClusterAdmin? = nil) {
        self.admin = admin
        self.cluster = cluster
    }

    package func answer(_ line: [UInt8]) async -> String {
        let request: RelayAdminRequest
        do {
            request = try JSONDecoder().decode(RelayAdminRequest.self, from: Data(line))
        } catch {
            return JSONLines.line(RelayAdminReply(id: nil, ok: false, error: Self.describe(error)))
        }
        do {
            return JSONLines.line(try await perform(request))
        } catch {
            // RelayAdminError and RelayAdminFailure both say what went wrong in words.
            return JSONLines.line(RelayAdminReply(id: request.id, ok: false, error: "\(error)"))
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
                    player: $0.participant, mediaID: $0.mediaID, channels: $0.channels, channelNames: $0.channelNames,
                    serverMuted: $0.serverMuted,
                    overUDP: $0.overUDP, overTCP: $0.overTCP, sending: $0.isSending,
                    packetsReceived: $0.counters.packetsReceived, packetsForwarded: $0.counters.packetsForwarded,
                    position: $0.position.map { [$0.x, $0.y, $0.z] }, placedByServer: $0.isPlacedByServer,
                    hearingRanges: Self.byName(
                        $0.hearingRanges, names: Dictionary(zip($0.channels, $0.channelNames)) { first, _ in first }))
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
            let number = channel.isEmpty ? ChannelNumber.session : ChannelNumber(named: channel)
            // An operator typing a name: one nobody has started is taken for a typo.
            if number != 0, try await admin.members(in: number, match: match).isEmpty {
                throw RelayAdminFailure(
                    "no player in match \"\(match)\" has channel \"\(channel)\" started, so \(player) would hear "
                        + "nobody there; move him to a channel a player has (`relay-admin players \(match)`)")
            }
            try await admin.move(participant: player, match: match, toChannel: number)
        case .position:
            let (match, player) = try member(request)
            let coordinates = try [("x", request.x), ("y", request.y), ("z", request.z)].map {
                name, value throws(RelayAdminFailure) -> Float in
                guard let value else { throw RelayAdminFailure("position needs field \"\(name)\"") }
                return Float(value)
            }
            let position = VoicePosition(x: coordinates[0], y: coordinates[1], z: coordinates[2])
            try await admin.setPosition(position, participant: player, match: match)
        case .releasePosition:
            let (match, player) = try member(request)
            try await admin.setPosition(nil, participant: player, match: match)
        case .cluster:
            reply.nodes = try await clustered().nodes().sorted { $0.node < $1.node }
        case .drain:
            reply.movingMatches = try await clustered().drain()
        case .stats:
            let statistics = try await admin.statistics()
            reply.statistics = RelayAdminReply.Statistics(
                matches: statistics.matches, players: statistics.participants, sending: statistics.currentSenders,
                joins: statistics.joins,
                refusals: Dictionary(uniqueKeysWithValues: statistics.refusals.map { ("\($0.key)", $0.value) }),
                packetsReceived: statistics.counters.packetsReceived,
                packetsForwarded: statistics.counters.packetsForwarded,
                packetsOutOfRange: statistics.counters.packetsOutOfRange,
                peerVoiceSent: statistics.counters.peerVoiceSent,
                peerVoiceReceived: statistics.counters.peerVoiceReceived,
                drops: Dictionary(
                    uniqueKeysWithValues: RelayDropReason.allCases.compactMap { reason in
                        let count = statistics.counters.drops(reason)
                        return count > 0 ? (reason.description, count) : nil
                    }))
        }
        return reply
    }

    private func clustered() throws(RelayAdminFailure) -> RelayClusterAdmin {
        guard let cluster else {
            throw RelayAdminFailure("this relay is in no cluster; start it with --cluster, --node and --advertise")
        }
        return cluster
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

    /// `ranges` keyed by channel name where a player gave one, else by number.
    private static func byName(_ ranges: [ChannelNumber: Float], names: [ChannelNumber: String]) -> [String: Float] {
        Dictionary(ranges.map { (names[$0.key] ?? "\($0.key)", $0.value) }) { first, _ in first }
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

/// What the admin API asks of a relay's cluster.
package struct RelayClusterAdmin: Sendable {
    /// The cluster's live nodes.
    package var nodes: @Sendable () async throws -> [ClusterNodeRecord]
    /// Starts draining the relay (it stops once drained); returns how many matches it moves.
    package var drain: @Sendable () async -> Int

    package init(
        nodes: @escaping @Sendable () async throws -> [ClusterNodeRecord], drain: @escaping @Sendable () async -> Int
    ) {
        self.nodes = nodes
        self.drain = drain
    }
}
