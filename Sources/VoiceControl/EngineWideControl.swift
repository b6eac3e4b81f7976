import VoiceCore
import VoiceEngine
import VoiceMedia

// What a call's control and a match's control share: the engine-wide part of a session (meters,
// microphone, talk key), reached through a `VoiceChatService`, and how the engine's refusals reach
// a control's caller.

extension VoiceChatService {
    /// Turns both meters on, so that snapshots carry levels.
    func enableMeters() {
        isInputMeteringEnabled = true
        isOutputMeteringEnabled = true
    }
}

extension SessionSnapshot {
    /// A snapshot whose engine-wide part is read from `service`: seconds since `start`, the meters'
    /// levels, the microphone and the talk key.
    init(
        service: VoiceChatService, start: MediaTime, volume: Float? = nil, channels: [ChannelSnapshot] = [],
        participants: [ParticipantSnapshot] = []
    ) {
        self.init(
            time: Double(service.engine.now - start) / Double(MediaTime.nanosecondsPerSecond),
            inputLevelDB: Self.finiteLevel(service.inputMeterLevel),
            outputLevelDB: Self.finiteLevel(service.outputMeterLevel),
            microphoneMuted: service.isMicrophoneMuted, pushToTalk: service.pushToTalk,
            talking: service.isTalkKeyDown, volume: volume, channels: channels, participants: participants,
            delayBudget: DelayBudgetSnapshot(service.engine.delayBudget))
        speechProcessing = service.engine.speechProcessing
        devices = service.engine.counters.deviceCatchUp
        echoCancellation = service.engine.echoCancellation
    }
}

extension VoiceChatService {
    /// Sets the engine's delay budget, reporting a refusal as `.engine`.
    func setMaximumDelay(milliseconds: Double) throws(ControlError) {
        try ControlError.fromEngine { () throws(VoiceChatError) in
            try engine.setMaximumDelay(milliseconds: milliseconds)
        }
    }
}

extension VoiceChatService {
    /// Changes what is given of the engine's speech processing, keeping the rest.
    func setSpeechProcessing(denoise: Bool?, automaticGainControl: Bool?, voiceActivityThresholdDBFS: Float?)
        throws(ControlError)
    {
        var processing = engine.speechProcessing
        if let denoise { processing.denoise = denoise }
        if let automaticGainControl { processing.automaticGainControl = automaticGainControl }
        if let voiceActivityThresholdDBFS { processing.voiceActivityThresholdDBFS = voiceActivityThresholdDBFS }
        try ControlError.fromEngine { () throws(VoiceChatError) in try engine.setSpeechProcessing(processing) }
    }
}

extension ControlError {
    /// Runs `body`, reporting the engine's refusal as `.engine`.
    static func fromEngine<Value>(_ body: () throws(VoiceChatError) -> Value) throws(ControlError) -> Value {
        do {
            return try body()
        } catch {
            throw .engine(error)
        }
    }
}
