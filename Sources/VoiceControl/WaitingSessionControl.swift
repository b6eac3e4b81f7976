import Synchronization
import VoiceCodec
import VoiceCore
import VoiceEngine
import VoiceMedia

/// The control of a session that waits for its calls (`listen`): its socket is open from the
/// start, so the microphone, push-to-talk, the delay budget and the speech processing can be set
/// before anyone calls. Those settings are kept here and carried into each call as it starts;
/// while a call runs, every request goes to the call's own control (and what it changes of those
/// settings is kept for the next call). What only a call has (its volume, its player) is refused
/// while none runs.
///
/// Thread contract: any thread; the state sits behind a mutex held for a copy or an assignment,
/// and the call's control is called outside it.
public final class WaitingSessionControl: VoiceSessionControl {
    /// What carries from one call to the next.
    struct Settings {
        var microphoneMuted = false
        var pushToTalk = false
        var talking = false
        var maximumDelayMilliseconds: Double?
        var denoise: Bool?
        var automaticGainControl: Bool?
        var voiceActivityThresholdDBFS: Float?
    }

    private let state: Mutex<(settings: Settings, call: (any VoiceSessionControl)?)>
    private let budget: DelayBudget

    /// `budget` is the one calls start with; `pushToTalk`, whether they start with push-to-talk on.
    public init(budget: DelayBudget, pushToTalk: Bool) {
        self.budget = budget
        var settings = Settings()
        settings.pushToTalk = pushToTalk
        state = Mutex((settings, nil))
    }

    /// Hands requests to `call` until `detach()`, after giving it the settings made so far.
    public func attach(_ call: any VoiceSessionControl) throws(ControlError) {
        let settings = state.withLock { $0.settings }
        try call.setMicrophoneMuted(settings.microphoneMuted)
        try call.setPushToTalk(settings.pushToTalk)
        try call.setTalking(settings.talking)
        if let milliseconds = settings.maximumDelayMilliseconds { try call.setMaximumDelay(milliseconds: milliseconds) }
        if settings.denoise != nil || settings.automaticGainControl != nil || settings.voiceActivityThresholdDBFS != nil
        {
            try call.setSpeechProcessing(
                denoise: settings.denoise, automaticGainControl: settings.automaticGainControl,
                voiceActivityThresholdDBFS: settings.voiceActivityThresholdDBFS)
        }
        state.withLock { $0.call = call }
    }

    /// The call ended: requests are answered here again.
    public func detach() {
        state.withLock { $0.call = nil }
    }

    private var call: (any VoiceSessionControl)? { state.withLock { $0.call } }

    /// Applies `change` to the settings kept, and `forward` to the running call, if any.
    private func set(
        _ change: (inout Settings) -> Void, forward: (any VoiceSessionControl) throws(ControlError) -> Void
    ) throws(ControlError) {
        if let call { try forward(call) }
        state.withLock { change(&$0.settings) }
    }

    /// The running call's control, or a refusal saying that `operation` needs a call.
    private func requireCall(_ operation: String) throws(ControlError) -> any VoiceSessionControl {
        guard let call else {
            throw .badRequest("\(operation) needs a call, and none is running yet; it applies once a caller arrives")
        }
        return call
    }

    public func snapshot() -> SessionSnapshot {
        if let call { return call.snapshot() }
        let settings = state.withLock { $0.settings }
        var waitingBudget = budget
        if let milliseconds = settings.maximumDelayMilliseconds { waitingBudget.maximumMilliseconds = milliseconds }
        return SessionSnapshot(
            time: 0, inputLevelDB: SessionSnapshot.silenceDB, outputLevelDB: SessionSnapshot.silenceDB,
            microphoneMuted: settings.microphoneMuted, pushToTalk: settings.pushToTalk, talking: settings.talking,
            delayBudget: DelayBudgetSnapshot(waitingBudget))
    }

    public func setMicrophoneMuted(_ muted: Bool) throws(ControlError) {
        try set({ $0.microphoneMuted = muted }) { call throws(ControlError) in try call.setMicrophoneMuted(muted) }
    }

    public func setPushToTalk(_ enabled: Bool) throws(ControlError) {
        try set({ $0.pushToTalk = enabled }) { call throws(ControlError) in try call.setPushToTalk(enabled) }
    }

    public func setTalking(_ down: Bool) throws(ControlError) {
        try set({ $0.talking = down }) { call throws(ControlError) in try call.setTalking(down) }
    }

    public func setMaximumDelay(milliseconds: Double) throws(ControlError) {
        do throws(CodecError) {
            try DelayBudget(maximumMilliseconds: milliseconds, frameDuration: budget.frameDuration).validate()
        } catch {
            throw .engine(.invalidSetting(error))
        }
        try set({ $0.maximumDelayMilliseconds = milliseconds }) { call throws(ControlError) in
            try call.setMaximumDelay(milliseconds: milliseconds)
        }
    }

    public func setSpeechProcessing(denoise: Bool?, automaticGainControl: Bool?, voiceActivityThresholdDBFS: Float?)
        throws(ControlError)
    {
        if let voiceActivityThresholdDBFS {
            var processing = SpeechProcessing()
            processing.voiceActivityThresholdDBFS = voiceActivityThresholdDBFS
            do throws(CodecError) {
                try processing.validate()
            } catch {
                throw .engine(.invalidSetting(error))
            }
        }
        try set(
            { settings in
                if let denoise { settings.denoise = denoise }
                if let automaticGainControl { settings.automaticGainControl = automaticGainControl }
                if let voiceActivityThresholdDBFS { settings.voiceActivityThresholdDBFS = voiceActivityThresholdDBFS }
            },
            forward: { call throws(ControlError) in
                try call.setSpeechProcessing(
                    denoise: denoise, automaticGainControl: automaticGainControl,
                    voiceActivityThresholdDBFS: voiceActivityThresholdDBFS)
            })
    }

    public func setVolume(_ volume: Float, channel: String?) throws(ControlError) {
        try requireCall("set-volume").setVolume(volume, channel: channel)
    }

    public func setPlayer(_ player: ParticipantID, muted: Bool, channel: String?) throws(ControlError) {
        try requireCall(muted ? "mute-player" : "unmute-player").setPlayer(player, muted: muted, channel: channel)
    }

    public func setPlayerVolume(_ volume: Float, player: ParticipantID) throws(ControlError) {
        try requireCall("set-player-volume").setPlayerVolume(volume, player: player)
    }

    public func startChannel(_ name: String) throws(ControlError) {
        try requireCall("start-channel").startChannel(name)
    }

    public func stopChannel(_ name: String) throws(ControlError) {
        try requireCall("stop-channel").stopChannel(name)
    }

    public func activateChannel(_ name: String) throws(ControlError) {
        try requireCall("activate-channel").activateChannel(name)
    }

    public func setPosition(_ position: VoicePosition, right: VoicePosition?, player: ParticipantID?)
        throws(ControlError)
    {
        try requireCall("set-position").setPosition(position, right: right, player: player)
    }

    public func setProximity(_ settings: ProximitySettings?, channel: String) throws(ControlError) {
        try requireCall("set-proximity").setProximity(settings, channel: channel)
    }
}
