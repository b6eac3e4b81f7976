import Synchronization
import VoiceCore
import VoiceEngine

/// Controls a 1:1 call: the service's engine-wide microphone and meters, and the one remote
/// participant. A call has no channels: `channel` must be nil (or the operation is refused), the
/// volume is the remote participant's, and muting the player silences them while remembering the
/// volume to return to.
public final class CallControl: VoiceSessionControl {
    public let service: VoiceChatService
    public let remote: ParticipantID
    private let start: MediaTime
    /// The volume asked for, and whether the remote participant is muted (volume held at 0).
    private let state: Mutex<(volume: Float, muted: Bool)>

    /// Turns the service's meters on, so snapshots carry levels.
    public init(service: VoiceChatService, remote: ParticipantID) {
        self.service = service
        self.remote = remote
        start = service.engine.now
        state = Mutex((service.remoteParticipantVolume, false))
        service.enableMeters()
    }

    public func snapshot() -> SessionSnapshot {
        let (volume, muted) = state.withLock { ($0.volume, $0.muted) }
        let statistics = service.engine.statistics().filter { $0.participant == remote }
        // A call with the remote participant, if there is one; else the participant is listed as
        // not (yet) reachable.
        var participant =
            statistics.first { $0.path != nil }.map { ParticipantSnapshot($0, muted: muted) }
            ?? statistics.first.map { ParticipantSnapshot($0, muted: muted) }
            ?? ParticipantSnapshot(participant: remote, muted: muted)
        participant.volume = service.volume(of: remote)
        return SessionSnapshot(service: service, start: start, volume: volume, participants: [participant])
    }

    public func setMicrophoneMuted(_ muted: Bool) throws(ControlError) { service.isMicrophoneMuted = muted }

    public func setPushToTalk(_ enabled: Bool) throws(ControlError) { service.pushToTalk = enabled }

    public func setTalking(_ down: Bool) throws(ControlError) { service.isTalkKeyDown = down }

    public func setVolume(_ volume: Float, channel: String?) throws(ControlError) {
        guard channel == nil else { throw .noChannels(operation: "setting a channel's volume") }
        guard volume.isFinite, (0...1).contains(volume) else { throw .volumeOutOfRange(volume) }
        try state.withLock { state throws(ControlError) in
            if !state.muted { try apply(volume) }
            state.volume = volume
        }
    }

    public func setPlayer(_ player: ParticipantID, muted: Bool, channel: String?) throws(ControlError) {
        guard channel == nil else { throw .noChannels(operation: "muting a player in a channel") }
        guard player == remote else { throw .unknownPlayer(player, available: [remote]) }
        try state.withLock { state throws(ControlError) in
            try apply(muted ? 0 : state.volume)
            state.muted = muted
        }
    }

    public func setPlayerVolume(_ volume: Float, player: ParticipantID) throws(ControlError) {
        guard player == remote else { throw .unknownPlayer(player, available: [remote]) }
        try ControlError.fromEngine { () throws(VoiceChatError) in try service.setVolume(volume, of: player) }
    }

    public func startChannel(_ name: String) throws(ControlError) {
        throw .noChannels(operation: "start-channel")
    }

    public func stopChannel(_ name: String) throws(ControlError) {
        throw .noChannels(operation: "stop-channel")
    }

    public func activateChannel(_ name: String) throws(ControlError) {
        throw .noChannels(operation: "activate-channel")
    }

    public func setMaximumDelay(milliseconds: Double) throws(ControlError) {
        try service.setMaximumDelay(milliseconds: milliseconds)
    }

    public func setSpeechProcessing(denoise: Bool?, automaticGainControl: Bool?, voiceActivityThresholdDBFS: Float?)
        throws(ControlError)
    {
        try service.setSpeechProcessing(
            denoise: denoise, automaticGainControl: automaticGainControl,
            voiceActivityThresholdDBFS: voiceActivityThresholdDBFS)
    }

    public func setPosition(_ position: VoicePosition, right: VoicePosition?, player: ParticipantID?)
        throws(ControlError)
    {
        throw .matchOnly(operation: "setting a position")
    }

    public func setProximity(_ settings: ProximitySettings?, channel: String) throws(ControlError) {
        throw .matchOnly(operation: "making a channel positional")
    }

    private func apply(_ volume: Float) throws(ControlError) {
        try ControlError.fromEngine { () throws(VoiceChatError) in try service.setRemoteParticipantVolume(volume) }
    }
}
