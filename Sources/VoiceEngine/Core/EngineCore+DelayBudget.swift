import VoiceCodec
import VoiceMedia

extension EngineCore {
    /// Refuses a budget outside `DelayBudget.allowedMilliseconds`, naming it.
    static func checkDelayBudget(_ budget: DelayBudget) throws(VoiceChatError) {
        do throws(CodecError) {
            try budget.validate()
        } catch {
            throw .invalidSetting(error)
        }
    }

    /// Holds every sender's copies and every listener's target within `milliseconds` from now on.
    func setMaximumDelay(milliseconds: Double) throws(VoiceChatError) {
        let budget = DelayBudget(maximumMilliseconds: milliseconds, frameDuration: configuration.frameDuration)
        try Self.checkDelayBudget(budget)
        delayBudget = budget
        let ceiling = receiveConfiguration.targetCeilingMilliseconds
        for session in sessions.values {
            session.outgoing.pipeline?.setDelayBudget(budget)
            for receiving in session.incoming.streams.values { receiving.stream.targetCeilingMilliseconds = ceiling }
        }
    }

    /// How a new receive stream buffers under the budget in force.
    var receiveConfiguration: JitterBufferConfiguration {
        configuration.receiveConfiguration(budget: delayBudget)
    }
}

extension VoiceEngine {
    /// The most mouth-to-ear delay the engine may add, ms (see `DelayBudget`).
    public var maximumDelayMilliseconds: Double { withCore { $0.delayBudget.maximumMilliseconds } }

    /// The budget in force, with how it is shared out.
    public var delayBudget: DelayBudget { withCore { $0.delayBudget } }

    /// Changes the budget while running: senders keep their redundant copies, and listeners
    /// their jitter targets, within it from the next frame on. Throws `.outOfRange` outside
    /// `DelayBudget.allowedMilliseconds`.
    public func setMaximumDelay(milliseconds: Double) throws(VoiceChatError) {
        try withCore { core throws(VoiceChatError) in try core.setMaximumDelay(milliseconds: milliseconds) }
    }
}
