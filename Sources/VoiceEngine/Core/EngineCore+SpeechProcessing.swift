import VoiceCodec
import VoiceMedia

extension EngineCore {
    /// Applies `processing` to every send pipeline now and to those built later.
    func setSpeechProcessing(_ processing: SpeechProcessing) throws(VoiceChatError) {
        do throws(CodecError) {
            try processing.validate(operation: "setSpeechProcessing")
            for session in sessions.values { try session.outgoing.pipeline?.setSpeechProcessing(processing) }
        } catch {
            throw .invalidSetting(error)
        }
        speechProcessing = processing
    }
}

extension VoiceEngine {
    /// Noise suppression, gain control and the speech gate's threshold now.
    public var speechProcessing: SpeechProcessing { withCore { $0.speechProcessing } }

    /// Switches noise suppression and gain control and moves the speech gate's threshold for what
    /// the microphone sends from now on, in every call and match; a stream goes on as it was.
    public func setSpeechProcessing(_ processing: SpeechProcessing) throws(VoiceChatError) {
        try withCore { core throws(VoiceChatError) in try core.setSpeechProcessing(processing) }
    }
}
