import VoiceMedia

/// The delay budget as observers read it: the budget, the part the frame length fixes, the part
/// left to the listener's buffer, and how far back the sender's copies may reach within it.
public struct DelayBudgetSnapshot: Sendable, Codable, Hashable {
    public var maximumMilliseconds: Double
    /// The frame, the encoder's look-ahead and the mean capture-to-playout phase.
    public var fixedMilliseconds: Double
    /// The most a listener's jitter target may be.
    public var bufferingMilliseconds: Double
    /// The farthest back a redundant copy may reach, in frames.
    public var repairReachLimitFrames: Int

    public init(_ budget: DelayBudget) {
        maximumMilliseconds = budget.maximumMilliseconds
        fixedMilliseconds = budget.fixedMilliseconds
        bufferingMilliseconds = budget.bufferingMilliseconds
        repairReachLimitFrames = budget.maximumRepairReach
    }
}
