/// What a `VoiceSendPipeline` has done since it was created.
public struct SendStatistics: Sendable, Hashable, Codable {
    /// Length of one frame, for turning counts into durations and bitrates.
    public var frameDurationMilliseconds: Double
    /// Every frame handed to `process`.
    public var framesCaptured = 0
    /// Frames not sent because the microphone was muted or the push-to-talk key was up.
    public var framesMuted = 0
    /// Silent frames not sent (discontinuous transmission).
    public var framesSuppressed = 0
    /// Of those, frames the encoder did not code: a long silence, where it rested (`EncoderRest`).
    public var framesRested = 0
    /// Frames of time the microphone lost (its device never delivered them), skipped on the
    /// timeline.
    public var framesLost = 0
    public var packetsSent = 0
    /// Packets whose frame the gate called speech.
    public var speechPackets = 0
    /// Packets sent during silence to keep the stream alive.
    public var keepAlivePackets = 0
    /// Packets flagged as the start of a talk spurt.
    public var talkSpurts = 0
    /// Whole packets, headers included.
    public var bytesSent = 0
    /// Opus payload of the primary frames.
    public var primaryBytes = 0
    /// Everything redundancy added to the packets: the copies and their descriptors.
    public var redundancyBytes = 0
    /// Earlier frames carried as redundant copies.
    public var redundantFramesSent = 0
    public var reportsApplied = 0
    /// Reports about another sender or channel, left unused.
    public var reportsIgnored = 0
    /// Encoder settings that libopus refused while adapting (should stay 0).
    public var adaptationFailures = 0

    // The protection in force, as the last report left it.
    public var fecEnabled = false
    public var packetLossHintPercent = 0
    public var redundancyDepth = 0
    /// How many frames back the farthest copy reaches (0 without copies).
    public var redundancyReach = 0
    /// The farthest a copy may reach within the delay budget, in frames.
    public var redundancyReachLimit = 0
    public var smoothedFractionLost: Float = 0
    public var smoothedMeanBurstLength: Float = 1

    public init(frameDurationMilliseconds: Double) {
        self.frameDurationMilliseconds = frameDurationMilliseconds
    }

    /// Captured audio, in seconds.
    public var capturedSeconds: Double { Double(framesCaptured) * frameDurationMilliseconds / 1_000 }

    /// Everything sent, bit/s over the captured time.
    public var bitrate: Double { bitsPerSecond(bytesSent) }
    /// The primary Opus payload, bit/s over the captured time.
    public var primaryBitrate: Double { bitsPerSecond(primaryBytes) }
    /// What redundancy added, bit/s over the captured time.
    public var redundancyBitrate: Double { bitsPerSecond(redundancyBytes) }

    private func bitsPerSecond(_ bytes: Int) -> Double {
        capturedSeconds > 0 ? Double(bytes) * 8 / capturedSeconds : 0
    }
}
