/// What one receive stream did, in the spirit of webrtc-stats' inbound RTP statistics. Counts are
/// packets (one Opus frame each) or 48 kHz samples; delays are milliseconds.
public struct ReceiveStatistics: Sendable, Hashable, Codable {
    /// Distinct valid packets from this stream's sender, including late ones.
    public var packetsReceived = 0
    /// Frames whose packet never arrived in time and that nothing recovered (concealed, or
    /// passed over as silence when the stream had gone idle).
    public var packetsLost = 0
    /// Packets that arrived after their frame had been played.
    public var packetsLate = 0
    /// Late packets whose frame had just been concealed, decoded unheard so that the next frame
    /// continues from the sender's state.
    public var lateFramesDecoded = 0
    /// Copies of packets already received.
    public var packetsDuplicated = 0
    /// Lost frames rebuilt from the next packet's in-band FEC.
    public var recoveredByFEC = 0
    /// Lost frames rebuilt from a redundant copy carried by a later packet.
    public var recoveredByRedundancy = 0
    /// Samples synthesized by packet loss concealment while speech was expected.
    public var concealedSamples = 0
    /// Samples played since the stream started playing (including silence in pauses).
    public var totalSamplesPlayed = 0
    /// RFC 3550 interarrival jitter.
    public var jitterMilliseconds = 0.0
    /// How long the frame just played (the last one played from a packet) waited between its
    /// packet's arrival and its playout.
    public var currentDelayMilliseconds = 0.0
    /// How long after a packet on the network's fastest path would arrive its frame plays: the
    /// latency the buffer adds, which it steers toward the target.
    public var playoutDelayMilliseconds = 0.0
    /// The delay the buffer steers toward.
    public var targetDelayMilliseconds = 0.0
    /// The most the target may be within the delay budget.
    public var targetCeilingMilliseconds = 0.0
    /// What the target would be without the budget: the arrival-delay percentile, the frame of
    /// margin and the frames the sender's protection reaches back.
    public var wantedTargetMilliseconds = 0.0
    /// Of the wanted target, what repairs from later packets need (the frames they reach back).
    public var repairDelayMilliseconds = 0.0
    /// Mean time from a packet's arrival to its frame's playout, over frames played from packets.
    public var meanBufferingDelayMilliseconds = 0.0
    /// 95th percentile of the same, in 1 ms steps.
    public var p95BufferingDelayMilliseconds = 0.0
    /// Frames skipped at once because the delay went over the ceiling.
    public var framesDroppedForCatchUp = 0
    /// Quiet or silent frames skipped to bring the delay down to its target (drift, shrinking jitter).
    public var framesDropped = 0
    /// Frames of silence or concealment added to bring the delay up to its target.
    public var framesInserted = 0
    /// Samples of speech squeezed out (a pitch period at a time) to shed a delay far over its
    /// target (only with `JitterBufferConfiguration.timeStretching`).
    public var samplesSqueezed = 0
    /// Frames the position moved earlier inside a talk spurt by squeezing speech, where
    /// `framesDropped` counts the low-energy frames skipped for the same.
    public var framesSqueezedAway = 0
    /// Packets refused: payload ranges outside the datagram, oversized frames, undecodable Opus,
    /// timestamps or sequence numbers far from the stream's timeline.
    public var malformedPackets = 0
    /// Packets for another sender or channel, refused.
    public var foreignPackets = 0

    public init() {}
}
