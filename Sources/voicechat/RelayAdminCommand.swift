import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import VoiceControl
import VoiceRelay
import VoiceWire

/// `voicechat relay-admin`: one request to a running relay's admin socket, its answer printed.
struct RelayAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay-admin",
        abstract: "Administer a running relay: list matches and players, kick, server-mute, move.",
        discussion: """
            Talks to the admin socket of `voicechat relay --admin-socket PATH` (on the relay's host, \
            as its user). Channels are given by name, as the players start them.

            Examples:
              voicechat relay-admin --socket /tmp/relay.admin matches
              voicechat relay-admin --socket /tmp/relay.admin players arena
              voicechat relay-admin --socket /tmp/relay.admin mute arena bob
              voicechat relay-admin --socket /tmp/relay.admin move arena bob team
              voicechat relay-admin --socket /tmp/relay.admin position arena bob 10 0 -4
            """
    )

    @Option(help: ArgumentHelp("The relay's --admin-socket.", valueName: "path"))
    var socket: String

    @Flag(help: "Print the relay's JSON reply instead of text.")
    var json = false

    @Argument(
        help: ArgumentHelp(
            "What to do: "
                + RelayAdminRequest.Command.allCases.map(\.rawValue).joined(separator: ", ")
                + "; then the match, the player, and the channel or coordinates it needs.",
            valueName: "command"))
    var command: String

    // Coordinates may be negative: "-4.5" is an argument, not an option.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("match, player, channel or coordinates, as the command needs", valueName: "arguments"))
    var arguments: [String] = []

    /// The request the arguments make, or a usage error naming what is missing.
    func request() throws -> RelayAdminRequest {
        guard let command = RelayAdminRequest.Command(rawValue: command) else {
            throw ValidationError(
                "there is no admin command \"\(command)\"; the commands are "
                    + RelayAdminRequest.Command.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let needed: [String] =
            switch command {
            case .matches, .stats, .cluster, .drain: []
            case .players: ["match"]
            case .kick, .mute, .unmute, .releasePosition: ["match", "player"]
            case .move: ["match", "player", "channel"]
            case .position: ["match", "player", "x", "y", "z"]
            }
        guard arguments.count == needed.count else {
            let usage = ([command.rawValue] + needed.map { $0.uppercased() }).joined(separator: " ")
            throw ValidationError(
                "\(command.rawValue) takes \(needed.isEmpty ? "nothing" : needed.joined(separator: ", ")), "
                    + "not \(arguments.count) argument\(arguments.count == 1 ? "" : "s"): "
                    + "voicechat relay-admin --socket PATH \(usage)")
        }
        var request = RelayAdminRequest(id: .number(1), command: command)
        for (name, value) in zip(needed, arguments) {
            switch name {
            case "match": request.match = value
            case "player": request.player = value
            case "x", "y", "z":
                let coordinate: Double
                do {
                    coordinate = try NumericArgument.coordinate.number(value)
                } catch {
                    throw ValidationError(
                        "\(name) \"\(value)\": \(error.message) Give the player's coordinates in the game's units.")
                }
                switch name {
                case "x": request.x = coordinate
                case "y": request.y = coordinate
                default: request.z = coordinate
                }
            default: request.channel = value
            }
        }
        return request
    }

    func validate() throws {
        _ = try request()
        guard !socket.isEmpty else { throw ValidationError("--socket is empty; give the relay's --admin-socket path") }
    }

    func run() async throws {
        let request = try request()
        let line = JSONLines.line(request)
        let answer = try await Self.exchange(line, socket: socket)
        guard let reply = try? JSONDecoder().decode(RelayAdminReply.self, from: Data(answer.utf8)) else {
            throw CommandFailure(
                "\(socket) answered something that is not an admin reply; is it a relay's admin socket?")
        }
        if json {
            print(answer, terminator: answer.hasSuffix("\n") ? "" : "\n")
        } else {
            print(Self.text(reply, for: request), terminator: "")
        }
        if !reply.ok { throw CommandFailure("the relay refused: \(reply.error ?? "no reason given")") }
    }

    /// The reply in words, a line each.
    static func text(_ reply: RelayAdminReply, for request: RelayAdminRequest) -> String {
        guard reply.ok else { return "" }
        switch request.command {
        case .matches:
            let matches = reply.matches ?? []
            if matches.isEmpty { return "no matches\n" }
            return matches.map { "\($0.match): \($0.players.joined(separator: ", "))\n" }.joined()
        case .players:
            return (reply.players ?? []).map { player in
                var flags = [player.overUDP ? "udp" : nil, player.overTCP ? "tcp" : nil].compactMap(\.self)
                if player.sending { flags.append("talking") }
                if player.serverMuted { flags.append("server-muted") }
                if let position = player.position {
                    let at = position.map { String(describing: $0) }.joined(separator: ", ")
                    flags.append("at (\(at))" + (player.placedByServer ? " placed by the server" : ""))
                }
                for (channel, range) in player.hearingRanges.sorted(by: { $0.key < $1.key }) {
                    flags.append("hears \(channel) within \(range)")
                }
                return "\(player.player)  media \(player.mediaID)  channels "
                    + (player.channelNames.isEmpty ? "none" : player.channelNames.joined(separator: ","))
                    + "  \(flags.joined(separator: " "))  \(player.packetsReceived) packets in, "
                    + "\(player.packetsForwarded) forwarded\n"
            }.joined()
        case .stats:
            guard let statistics = reply.statistics else { return "" }
            var text =
                "\(statistics.matches) match\(statistics.matches == 1 ? "" : "es"), \(statistics.players) players, "
                + "\(statistics.sending) talking; \(statistics.joins) joins; \(statistics.packetsReceived) packets in, "
                + "\(statistics.packetsForwarded) forwarded, \(statistics.packetsOutOfRange) kept from listeners out of range\n"
            if let sent = statistics.peerVoiceSent, let received = statistics.peerVoiceReceived, sent + received > 0 {
                text += "\(sent) voice packets sent to other relays, \(received) received from them\n"
            }
            for (reason, count) in statistics.refusals.sorted(by: { $0.key < $1.key }) {
                text += "refused \(reason): \(count)\n"
            }
            for (reason, count) in statistics.drops.sorted(by: { $0.key < $1.key }) {
                text += "dropped \(reason): \(count)\n"
            }
            return text
        case .cluster:
            let nodes = reply.nodes ?? []
            if nodes.isEmpty { return "no live nodes\n" }
            return nodes.map { node in
                "\(node.node)  \(node.advertise)  \(node.participants) players in \(node.matches) match"
                    + (node.matches == 1 ? "" : "es")
                    + ", \(Int(node.forwardedPerSecond.rounded())) packets/s forwarded, "
                    + String(format: "%.2f", node.cpuCores) + " cores" + (node.draining ? ", draining" : "") + "\n"
            }.joined()
        case .drain:
            let moving = reply.movingMatches ?? 0
            return "draining: moving \(moving) match\(moving == 1 ? "" : "es") to other relays; the relay stops once "
                + "they have moved\n"
        case .kick: return "kicked \(request.player ?? "") from \(request.match ?? "")\n"
        case .mute: return "server-muted \(request.player ?? "") in \(request.match ?? "")\n"
        case .unmute: return "unmuted \(request.player ?? "") in \(request.match ?? "")\n"
        case .move:
            let channel = request.channel ?? ""
            return "moved \(request.player ?? "") to " + (channel.isEmpty ? "no channel" : "channel \(channel)") + "\n"
        case .position:
            let at = [request.x, request.y, request.z].map { String(describing: $0 ?? 0) }.joined(separator: ", ")
            return "placed \(request.player ?? "") at (\(at)) in \(request.match ?? "")\n"
        case .releasePosition:
            return "\(request.player ?? "")'s own position reports count again in \(request.match ?? "")\n"
        }
    }

    /// Sends one request line and returns the reply line; at most 5 s.
    static func exchange(_ line: String, socket path: String) async throws -> String {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(2))
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw CommandFailure(
                "cannot reach the relay's admin socket \(path) (\(Self.reason(error))); start the relay with "
                    + "--admin-socket \(path), on this host, as this user")
        }
        return try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: line))
                    var reply = ByteBuffer()
                    for try await var piece in inbound {
                        reply.writeBuffer(&piece)
                        if reply.readableBytesView.contains(UInt8(ascii: "\n")) { break }
                    }
                    return String(buffer: reply)
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(5))
                throw CommandFailure("the relay's admin socket \(path) did not answer within 5 s")
            }
            let reply = try await group.next() ?? ""
            group.cancelAll()
            return reply
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }
}

extension NumericArgument {
    /// A coordinate in the game's units: any number a Float holds.
    static let coordinate = NumericArgument(
        -Double(Float.greatestFiniteMagnitude)...Double(Float.greatestFiniteMagnitude), unit: "",
        spelledRange: "a number a 32-bit float holds")
}
