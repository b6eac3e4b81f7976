import CVoiceChatABI
import Foundation
import Logging
import VoiceCore
import VoiceRelay
import VoiceWire

/// A relay a C caller made: its configuration until it starts, then the running server.
final class RelayHandle: Sendable {
    let server: RelayServer

    init(server: RelayServer) {
        self.server = server
    }

    /// The admin of the running relay, or a refusal when it never started.
    func admin() throws(CallFailure) -> RelayAdmin {
        guard server.localPort != nil else {
            throw CallFailure(VC_ERROR_INVALID_STATE, "the relay is not running: start it with vc_relay_start")
        }
        return server.admin
    }
}

let relays = HandleRegistry<RelayHandle>(kind: 0)

@_cdecl("vc_relay_options_init")
public func cRelayOptionsInit(_ options: UnsafeMutablePointer<vc_relay_options>?) {
    guard let options else { return }
    options.pointee = vc_relay_options()
    options.pointee.struct_size = UInt32(MemoryLayout<vc_relay_options>.size)
    options.pointee.host = nil
    options.pointee.port = 7_700
    options.pointee.liveness_timeout_seconds = 5
}

@_cdecl("vc_relay_create")
public func cRelayCreate(
    _ options: UnsafePointer<vc_relay_options>?, _ relay: UnsafeMutablePointer<OpaquePointer?>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let relay = try handlePlace(relay, "relay")
        let options = try sized(options, "options", filledBy: "fill them with vc_relay_options_init")
        let host =
            options.host == nil ? "0.0.0.0" : try text(options.host, "options.host", maximumBytes: 255)
        let secret = try relaySecret(options.secret, options.secret_length)
        var configuration = RelayConfiguration(host: host, port: Int(options.port), secret: secret)
        if options.audience != nil {
            configuration.audience = try text(
                options.audience, "options.audience", maximumBytes: RelayToken.maximumIDBytes)
        }
        let liveness = options.liveness_timeout_seconds
        guard liveness.isFinite, liveness > 0, liveness <= 3_600 else {
            throw .invalidArgument("options.liveness_timeout_seconds is \(liveness); give more than 0 and at most 3600")
        }
        configuration.livenessTimeout = .milliseconds(Int((liveness * 1_000).rounded()))
        var logger = Logger(label: "voicechat.relay")
        logger.logLevel = .notice
        relay.pointee = relays.add(RelayHandle(server: RelayServer(configuration: configuration, logger: logger)))
    }
}

@_cdecl("vc_relay_start")
public func cRelayStart(_ relay: OpaquePointer?, _ port: UnsafeMutablePointer<UInt16>?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try relays.object(relay, "relay")
        let bound = try waitFor { () async throws(CallFailure) -> Int in
            do throws(RelayServerError) {
                return try await handle.server.start()
            } catch {
                if case .alreadyStarted = error {
                    throw CallFailure(
                        VC_ERROR_INVALID_STATE, "the relay was already started; make a new one to start again")
                }
                throw CallFailure(VC_ERROR_SYSTEM, "\(error)")
            }
        }
        port?.pointee = UInt16(clamping: bound)
    }
}

@_cdecl("vc_relay_stop")
public func cRelayStop(_ relay: OpaquePointer?) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try relays.object(relay, "relay")
        try waitFor { () async throws(CallFailure) in await handle.server.shutdown() }
    }
}

@_cdecl("vc_relay_destroy")
public func cRelayDestroy(_ relay: OpaquePointer?) -> vc_result {
    answer { () throws(CallFailure) in
        guard relay != nil else { throw .invalidArgument("relay is NULL") }
        guard let handle = relays.remove(relay) else {
            throw CallFailure(VC_ERROR_INVALID_HANDLE, "relay is not a live handle: it was destroyed already")
        }
        try waitFor { () async throws(CallFailure) in await handle.server.shutdown() }
    }
}

/// Runs an admin order on `relay`'s match and player, mapping the relay's refusals to codes.
private func order(
    _ relay: OpaquePointer?, _ match: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?,
    _ body: @escaping @Sendable (RelayAdmin, String, String) async throws(RelayAdminError) -> Void
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try relays.object(relay, "relay")
        let matchID = try text(match, "match", maximumBytes: RelayToken.maximumIDBytes)
        let playerID = try text(player, "player", maximumBytes: RelayToken.maximumIDBytes)
        let admin = try handle.admin()
        try waitFor { () async throws(CallFailure) in
            do throws(RelayAdminError) {
                try await body(admin, matchID, playerID)
            } catch {
                throw failure(error)
            }
        }
    }
}

/// The code and words for what the relay's admin refused.
private func failure(_ error: RelayAdminError) -> CallFailure {
    switch error {
    case .unknownMatch, .unknownParticipant: CallFailure(VC_ERROR_NOT_FOUND, error.description)
    case .notRunning: CallFailure(VC_ERROR_INVALID_STATE, "the relay is not running: start it with vc_relay_start")
    case .invalidPosition: CallFailure(VC_ERROR_INVALID_ARGUMENT, error.description)
    }
}

@_cdecl("vc_relay_set_server_mute")
public func cRelaySetServerMute(
    _ relay: OpaquePointer?, _ match: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?, _ muted: Int32
) -> vc_result {
    order(relay, match, player) { admin, match, player throws(RelayAdminError) in
        try await admin.setServerMute(muted != 0, participant: player, match: match)
    }
}

@_cdecl("vc_relay_move")
public func cRelayMove(
    _ relay: OpaquePointer?, _ match: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?,
    _ channel: UnsafePointer<CChar>?
) -> vc_result {
    let name: String
    do {
        name = try text(channel, "channel", maximumBytes: RelayMessage.maximumChannelNameBytes, allowEmpty: true)
    } catch {
        LastError.set(error.message)
        return error.code
    }
    let number = name.isEmpty ? ChannelNumber.session : ChannelNumber(named: name)
    return order(relay, match, player) { admin, match, player throws(RelayAdminError) in
        try await admin.move(participant: player, match: match, toChannel: number)
    }
}

@_cdecl("vc_relay_kick")
public func cRelayKick(_ relay: OpaquePointer?, _ match: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?)
    -> vc_result
{
    order(relay, match, player) { admin, match, player throws(RelayAdminError) in
        try await admin.kick(participant: player, match: match)
    }
}

@_cdecl("vc_relay_set_position")
public func cRelaySetPosition(
    _ relay: OpaquePointer?, _ match: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?, _ x: Float, _ y: Float,
    _ z: Float
) -> vc_result {
    let position = VoicePosition(x: x, y: y, z: z)
    guard position.isFinite else {
        LastError.set("the position (\(x), \(y), \(z)) is not three finite numbers")
        return VC_ERROR_INVALID_ARGUMENT
    }
    return order(relay, match, player) { admin, match, player throws(RelayAdminError) in
        try await admin.setPosition(position, participant: player, match: match)
    }
}

@_cdecl("vc_relay_release_position")
public func cRelayReleasePosition(
    _ relay: OpaquePointer?, _ match: UnsafePointer<CChar>?, _ player: UnsafePointer<CChar>?
) -> vc_result {
    order(relay, match, player) { admin, match, player throws(RelayAdminError) in
        try await admin.setPosition(nil, participant: player, match: match)
    }
}

@_cdecl("vc_relay_players_json")
public func cRelayPlayersJSON(
    _ relay: OpaquePointer?, _ match: UnsafePointer<CChar>?, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ needed: UnsafeMutablePointer<Int>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try relays.object(relay, "relay")
        let matchID = try text(match, "match", maximumBytes: RelayToken.maximumIDBytes)
        let admin = try handle.admin()
        let players = try waitFor { () async throws(CallFailure) -> [RelayParticipantInfo] in
            do throws(RelayAdminError) {
                return try await admin.participants(match: matchID)
            } catch {
                throw failure(error)
            }
        }
        let objects: [[String: Any]] = players.sorted { $0.participant < $1.participant }.map { player in
            var object: [String: Any] = [
                "player": player.participant, "mediaID": player.mediaID.rawValue, "channels": player.channelNames,
                "serverMuted": player.serverMuted, "overUDP": player.overUDP, "overTCP": player.overTCP,
                "sending": player.isSending, "packetsReceived": player.counters.packetsReceived,
                "packetsForwarded": player.counters.packetsForwarded,
            ]
            if let position = player.position { object["position"] = [position.x, position.y, position.z] }
            return object
        }
        try write(json(objects), into: buffer, capacity: capacity, needed: needed)
    }
}

@_cdecl("vc_relay_statistics_json")
public func cRelayStatisticsJSON(
    _ relay: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ needed: UnsafeMutablePointer<Int>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let handle = try relays.object(relay, "relay")
        let admin = try handle.admin()
        let statistics = try waitFor { () async throws(CallFailure) -> RelayStatistics in
            do throws(RelayAdminError) {
                return try await admin.statistics()
            } catch {
                throw failure(error)
            }
        }
        let object: [String: Any] = [
            "matches": statistics.matches, "players": statistics.participants, "joins": statistics.joins,
            "packetsReceived": statistics.counters.packetsReceived,
            "packetsForwarded": statistics.counters.packetsForwarded,
        ]
        try write(json(object), into: buffer, capacity: capacity, needed: needed)
    }
}

/// `value` as compact JSON with sorted keys.
private func json(_ value: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return "null" }
    return String(decoding: data, as: UTF8.self)
}
