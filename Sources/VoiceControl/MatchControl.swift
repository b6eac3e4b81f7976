import Synchronization
import VoiceCore
import VoiceEngine

/// Controls a match through the voice channels given to it, by name, and those `start-channel`
/// opens later. The microphone, push-to-talk and meters are engine-wide; a `VoiceChatService` on
/// the match's engine is their handle (it places no calls).
public final class MatchControl: VoiceSessionControl {
    public let match: Match
    /// The channels this control drives: those given, in order, then those started by name.
    public var channels: [VoiceChannel] { driven.withLock { $0 } }
    private let driven: Mutex<[VoiceChannel]>
    private let engineControls: VoiceChatService
    private let start: MediaTime

    /// Turns the engine's meters on, so snapshots carry levels.
    public init(match: Match, channels: [VoiceChannel]) {
        self.match = match
        driven = Mutex(channels)
        engineControls = VoiceChatService(engine: match.engine, client: match.client)
        start = match.engine.now
        engineControls.enableMeters()
    }

    public func snapshot() -> SessionSnapshot {
        let muted = channels.map(\.mutedPlayers)
        let statistics = match.engine.statistics().filter { $0.session == match.matchID }
        let reachable = Set(statistics.filter { $0.path != nil }.map(\.participant))
        var channelSnapshots: [ChannelSnapshot] = []
        for (channel, mutedPlayers) in zip(channels, muted) {
            var states: [String: String] = [:]
            for (player, state) in channel.playerStates {
                states[player.rawValue] = Self.stateName(state, reachable: reachable.contains(player))
            }
            channelSnapshots.append(
                ChannelSnapshot(
                    name: channel.name, started: channel.isStarted, active: channel.isActive, volume: channel.volume,
                    mutedPlayers: mutedPlayers.sorted(), playerStates: states))
        }
        let participants = statistics.map { statistics in
            // Muted everywhere: in every channel this control drives.
            var participant = ParticipantSnapshot(
                statistics,
                muted: !muted.isEmpty && muted.allSatisfy { $0.contains(statistics.participant) })
            participant.volume = engineControls.volume(of: statistics.participant)
            return participant
        }
        return SessionSnapshot(
            service: engineControls, start: start, channels: channelSnapshots, participants: participants)
    }

    /// A player's state in a channel as the stats show it: GameKit's `disconnected` covers a player
    /// who is in the match and reachable but not in this channel, which reads as a broken
    /// connection; the stats say `not-in-channel` for that.
    static func stateName(_ state: PlayerState, reachable: Bool) -> String {
        state == .disconnected && reachable ? "not-in-channel" : state.rawValue
    }

    public func setMicrophoneMuted(_ muted: Bool) throws(ControlError) { engineControls.isMicrophoneMuted = muted }

    public func setPushToTalk(_ enabled: Bool) throws(ControlError) { engineControls.pushToTalk = enabled }

    public func setTalking(_ down: Bool) throws(ControlError) { engineControls.isTalkKeyDown = down }

    public func setVolume(_ volume: Float, channel: String?) throws(ControlError) {
        guard volume.isFinite, (0...1).contains(volume) else { throw .volumeOutOfRange(volume) }
        for target in try targets(channel, operation: "setting the volume") {
            try ControlError.fromEngine { () throws(VoiceChatError) in try target.setVolume(volume) }
        }
    }

    public func setPlayer(_ player: ParticipantID, muted: Bool, channel: String?) throws(ControlError) {
        let targets = try targets(channel, operation: "muting a player")
        try requirePlayer(player)
        for target in targets {
            try ControlError.fromEngine { () throws(VoiceChatError) in try target.setPlayer(player, muted: muted) }
        }
    }

    public func setPlayerVolume(_ volume: Float, player: ParticipantID) throws(ControlError) {
        try requirePlayer(player)
        try ControlError.fromEngine { () throws(VoiceChatError) in try engineControls.setVolume(volume, of: player) }
    }

    /// Starts a channel this control drives, or opens the match's channel of that name first.
    public func startChannel(_ name: String) throws(ControlError) {
        let channel = try driven.withLock { driven throws(ControlError) in
            if let known = driven.first(where: { $0.name == name }) { return known }
            let opened = try ControlError.fromEngine { () throws(VoiceChatError) in try match.voiceChat(named: name) }
            driven.append(opened)
            return opened
        }
        try ControlError.fromEngine { () throws(VoiceChatError) in try channel.start() }
    }

    public func stopChannel(_ name: String) throws(ControlError) {
        let channel = try self.channel(named: name)
        try ControlError.fromEngine { () throws(VoiceChatError) in try channel.stop() }
    }

    public func activateChannel(_ name: String) throws(ControlError) {
        let channel = try self.channel(named: name)
        try ControlError.fromEngine { () throws(VoiceChatError) in try channel.setActive(true) }
    }

    public func setMaximumDelay(milliseconds: Double) throws(ControlError) {
        try engineControls.setMaximumDelay(milliseconds: milliseconds)
    }

    public func setSpeechProcessing(denoise: Bool?, automaticGainControl: Bool?, voiceActivityThresholdDBFS: Float?)
        throws(ControlError)
    {
        try engineControls.setSpeechProcessing(
            denoise: denoise, automaticGainControl: automaticGainControl,
            voiceActivityThresholdDBFS: voiceActivityThresholdDBFS)
    }

    public func setPosition(_ position: VoicePosition, right: VoicePosition?, player: ParticipantID?)
        throws(ControlError)
    {
        guard let player, player != match.engine.participant else {
            return try ControlError.fromEngine { () throws(VoiceChatError) in
                try match.setPosition(position, right: right)
            }
        }
        try requirePlayer(player)
        try ControlError.fromEngine { () throws(VoiceChatError) in try match.setPosition(position, of: player) }
    }

    public func setProximity(_ settings: ProximitySettings?, channel name: String) throws(ControlError) {
        let channel = try self.channel(named: name)
        try ControlError.fromEngine { () throws(VoiceChatError) in try channel.setProximity(settings) }
    }

    /// Throws `.unknownPlayer`, naming the match's players, unless `player` is one of them.
    private func requirePlayer(_ player: ParticipantID) throws(ControlError) {
        let players = match.engine.statistics().filter { $0.session == match.matchID }.map(\.participant)
        guard players.contains(player) else { throw .unknownPlayer(player, available: players.sorted()) }
    }

    private func channel(named name: String) throws(ControlError) -> VoiceChannel {
        guard let channel = channels.first(where: { $0.name == name }) else {
            throw .unknownChannel(name, available: channels.map(\.name))
        }
        return channel
    }

    /// The named channel, or every channel when `name` is nil.
    private func targets(_ name: String?, operation: String) throws(ControlError) -> [VoiceChannel] {
        if let name { return [try channel(named: name)] }
        guard !channels.isEmpty else { throw .noChannelsInMatch(operation: operation) }
        return channels
    }
}
