import VoiceCore

/// The operations a control socket, the interactive console and scripts drive, over either a 1:1
/// call (`CallControl`) or a match (`MatchControl`). Every method may be called from any thread;
/// a refused operation throws and leaves the session as it was.
public protocol VoiceSessionControl: AnyObject, Sendable {
    func snapshot() -> SessionSnapshot
    func setMicrophoneMuted(_ muted: Bool) throws(ControlError)
    /// Turns push-to-talk on or off: when on, the microphone sends only while the talk key is down.
    func setPushToTalk(_ enabled: Bool) throws(ControlError)
    /// The push-to-talk key.
    func setTalking(_ down: Bool) throws(ControlError)
    /// 0…1. `channel` nil: the call's remote participant, or every channel of a match.
    func setVolume(_ volume: Float, channel: String?) throws(ControlError)
    /// `channel` nil: the call, or every channel of a match.
    func setPlayer(_ player: ParticipantID, muted: Bool, channel: String?) throws(ControlError)
    /// One player's own volume, 0…2, in every channel (see `VoiceChatService.setVolume(_:of:)`).
    func setPlayerVolume(_ volume: Float, player: ParticipantID) throws(ControlError)
    func startChannel(_ name: String) throws(ControlError)
    func stopChannel(_ name: String) throws(ControlError)
    /// Gives the microphone to this channel, taking it from the channel that had it.
    func activateChannel(_ name: String) throws(ControlError)
    /// The most delay the engine may add, mouth to ear (see `DelayBudget`), 40…1000 ms.
    func setMaximumDelay(milliseconds: Double) throws(ControlError)
    /// Noise suppression, gain control and the speech gate's threshold (−120…0 dBFS), engine-wide;
    /// nil leaves a setting as it is.
    func setSpeechProcessing(denoise: Bool?, automaticGainControl: Bool?, voiceActivityThresholdDBFS: Float?)
        throws(ControlError)
    /// Where this player (`player` nil, facing so that `right` is to its right) or another
    /// stands, for positional channels (matches only).
    func setPosition(_ position: VoicePosition, right: VoicePosition?, player: ParticipantID?) throws(ControlError)
    /// Makes a channel positional, or (nil) heard whole again (matches only).
    func setProximity(_ settings: ProximitySettings?, channel: String) throws(ControlError)
}
