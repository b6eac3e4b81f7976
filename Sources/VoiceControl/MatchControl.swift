import Synchronization
import VoiceCore
import VoiceEngine

/// Controls a match through the voice channels given to it, by name. The microphone, push-to-talk
/// and meters are engine-wide; a `VoiceChatService` on the match's engine is their handle (it
/// places no calls).
public final class MatchControl: VoiceSessionControl {
    public let match: Match
    /// The channels this control drives, in the order given.
    public let channels: [VoiceChannel]
    private let engineControls: VoiceChatService
    private let start: MediaTime
    /// Players muted through this control, by channel name. The engine does not report mutes, so
    /// mutes made elsewhere do not show in snapshots.
    private let mutedPlayers: Mutex<[String: Set<String>]>

    /// Turns the engine's meters on, so snapshots carry levels.
    public init(match: Match, channels: [VoiceChannel]) {
        self.match = match
        self.channels = channels
        engineControls = VoiceChatService(engine: match.engine, client: match.client)
        start = match.engine.now
        mutedPlayers = Mutex([:])
        engineControls.isInputMeteringEnabled = true
        engineControls.isOutputMeteringEnabled = true
    }

    public func snapshot() -> SessionSnapshot {
        let muted = mutedPlayers.withLock { $0 }
        let channelSnapshots = channels.map { channel in
            ChannelSnapshot(
                name: channel.name, started: channel.isStarted, active: channel.isActive, volume: channel.volume,
                mutedPlayers: (muted[channel.name] ?? []).sorted(),
                playerStates: channel.playerStates.mapValues(\.rawValue))
        }
        let participants = match.engine.statistics().filter { $0.session == match.matchID }.map { statistics in
            ParticipantSnapshot(statistics, muted: isMutedEverywhere(statistics.participant, in: muted))
        }
        return SessionSnapshot(
            time: Double(match.engine.now - start) / Double(MediaTime.nanosecondsPerSecond),
            inputLevelDB: SessionSnapshot.finiteLevel(engineControls.inputMeterLevel),
            outputLevelDB: SessionSnapshot.finiteLevel(engineControls.outputMeterLevel),
            microphoneMuted: engineControls.isMicrophoneMuted, pushToTalk: engineControls.pushToTalk,
            talking: engineControls.isTalkKeyDown, channels: channelSnapshots, participants: participants)
    }

    public func setMicrophoneMuted(_ muted: Bool) throws(ControlError) { engineControls.isMicrophoneMuted = muted }

    public func setPushToTalk(_ enabled: Bool) throws(ControlError) { engineControls.pushToTalk = enabled }

    public func setTalking(_ down: Bool) throws(ControlError) { engineControls.isTalkKeyDown = down }

    public func setVolume(_ volume: Float, channel: String?) throws(ControlError) {
        guard volume.isFinite, (0...1).contains(volume) else { throw .volumeOutOfRange(volume) }
        for target in try targets(channel, operation: "setting the volume") {
            try engine { () throws(VoiceChatError) in try target.setVolume(volume) }
        }
    }

    public func setPlayer(_ player: String, muted: Bool, channel: String?) throws(ControlError) {
        let targets = try targets(channel, operation: "muting a player")
        let players = match.engine.statistics().filter { $0.session == match.matchID }.map(\.participant)
        guard players.contains(player) else { throw .unknownPlayer(player, available: players.sorted()) }
        for target in targets {
            try engine { () throws(VoiceChatError) in try target.setPlayer(player, muted: muted) }
            mutedPlayers.withLock { mutes in
                if muted {
                    mutes[target.name, default: []].insert(player)
                } else {
                    mutes[target.name]?.remove(player)
                }
            }
        }
    }

    public func startChannel(_ name: String) throws(ControlError) {
        let channel = try self.channel(named: name)
        try engine { () throws(VoiceChatError) in try channel.start() }
    }

    public func stopChannel(_ name: String) throws(ControlError) {
        let channel = try self.channel(named: name)
        try engine { () throws(VoiceChatError) in try channel.stop() }
    }

    public func activateChannel(_ name: String) throws(ControlError) {
        let channel = try self.channel(named: name)
        try engine { () throws(VoiceChatError) in try channel.setActive(true) }
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

    private func isMutedEverywhere(_ player: String, in muted: [String: Set<String>]) -> Bool {
        !channels.isEmpty && channels.allSatisfy { muted[$0.name]?.contains(player) == true }
    }

    private func engine(_ body: () throws(VoiceChatError) -> Void) throws(ControlError) {
        do {
            try body()
        } catch {
            throw .engine(error.description)
        }
    }
}
