import CVoiceChatABI
import Synchronization
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceRelayClient

/// A match a C caller joined: the match, the relay client that carries its signalling (if it
/// goes through a relay), the channels the game opened, and who is in it as the events told.
final class MatchHandle: Sendable {
    let match: Match
    let owner: EngineHandle
    let number: UInt
    let relayClient: RelayMatchClient?
    let roster: MatchRoster
    private let channels = Mutex<[String: VoiceChannel]>([:])

    init(match: Match, owner: EngineHandle, number: UInt, relayClient: RelayMatchClient?, roster: MatchRoster) {
        self.match = match
        self.owner = owner
        self.number = number
        self.relayClient = relayClient
        self.roster = roster
    }

    /// The channel `name`, opened on first use.
    func channel(_ name: String) throws(CallFailure) -> VoiceChannel {
        if let open = channels.withLock({ $0[name] }) { return open }
        do {
            let opened = try match.voiceChat(named: name)
            return channels.withLock { channels in
                if let raced = channels[name] { return raced }
                channels[name] = opened
                return opened
            }
        } catch {
            throw failure(error)
        }
    }

    /// A channel the game opened before, for per-frame calls that must not wait to open one.
    func openedChannel(_ name: String) throws(CallFailure) -> VoiceChannel {
        guard let open = channels.withLock({ $0[name] }) else {
            throw CallFailure(
                VC_ERROR_NOT_FOUND,
                "channel \"\(name)\" was never started in this match; start it with vc_match_start_channel")
        }
        return open
    }

    var openedChannels: [VoiceChannel] { channels.withLock { Array($0.values) } }

    /// Leaves the match and closes the relay's signalling link.
    func leave() async {
        match.disconnect()
        await relayClient?.close()
    }
}

/// Who is in a match and their state per channel, as the events reported them: what per-frame
/// calls check a player's name against without waiting for the engine.
final class MatchRoster: Sendable {
    private let state = Mutex<(players: Set<ParticipantID>, states: [String: [ParticipantID: PlayerState]])>(([], [:]))

    func add(_ players: [ParticipantID]) { state.withLock { $0.players.formUnion(players) } }
    func remove(_ player: ParticipantID) { state.withLock { _ = $0.players.remove(player) } }
    func contains(_ player: ParticipantID) -> Bool { state.withLock { $0.players.contains(player) } }

    /// Replaces the roster with the relay's list.
    func replace(with players: [ParticipantID]) { state.withLock { $0.players = Set(players) } }

    /// Notes what an event says of a player.
    func note(_ event: MatchEvent) {
        switch event {
        case .playerState(let channel, let player, let playerState):
            state.withLock { state in
                state.players.insert(player)
                state.states[channel, default: [:]][player] = playerState
            }
        case .playerConnection(let player, _):
            state.withLock { _ = $0.players.insert(player) }
        default: break
        }
    }

    /// Notes what the relay's signalling link says of the roster.
    func note(_ event: RelaySignallingEvent) {
        switch event {
        case .joined(let members): replace(with: members.map { ParticipantID($0) })
        case .memberJoined(let member): add([ParticipantID(member)])
        case .memberLeft(let member): remove(ParticipantID(member))
        default: break
        }
    }

    /// A known player's last state in `channel` (connecting until one was reported); nil for a stranger.
    func state(of player: ParticipantID, in channel: String) -> PlayerState? {
        state.withLock { state in
            guard state.players.contains(player) else { return nil }
            return state.states[channel]?[player] ?? .connecting
        }
    }
}
