import VoiceCore

/// When a receive stream squeezes its speech (`SpeechTimeScaler`), and by how much, with
/// `JitterBufferConfiguration.timeStretching` on.
///
/// The stream decodes a whole frame when less than a frame waits for the mixer, so a packet must
/// be there by then: the decode's delay is the jitter protection, and what waits on top of it is
/// delay that protects nothing. Squeezing works with that:
/// - A delay far over its target with the next frame already here (`StreamPlayout.wantsFrameLess`)
///   is shed inside the talk spurt by squeezing the speech a pitch period at a time: once more is
///   squeezed out than waited, the next frame decodes at once, a frame earlier.
/// - What is left waiting after such a step (under a frame) is squeezed out too, so the delay the
///   listener hears comes down to the decode's own.
///
/// The rate is bounded: each sample played earns `JitterBufferConfiguration.maximumStretchRate` of
/// a sample that may be squeezed, at most one longest stretch saved up, so over any stretch of
/// playout the speech runs at most 10 % faster (plus that one stretch).
struct PlayoutStretching {
    /// Samples that may be squeezed now.
    private(set) var allowance = Double(SpeechTimeScaler.longestStretch)

    /// Earns the allowance of `samples` played.
    mutating func notePlayed(samples: Int) {
        allowance = min(
            allowance + Double(samples) * JitterBufferConfiguration.maximumStretchRate,
            Double(SpeechTimeScaler.longestStretch))
    }

    /// The most to squeeze out of a frame just decoded, with `waitingSamples` decoded before it
    /// still waiting for the mixer, after which the position wants a frame less (`frameLess`) or
    /// not; nil: nothing.
    func squeeze(frameLess: Bool, waitingSamples: Int) -> Int? {
        let maximum = frameLess ? Int(allowance) : min(Int(allowance), waitingSamples)
        return maximum >= SpeechTimeScaler.shortestStretch ? maximum : nil
    }

    /// Spends the allowance of `samples` squeezed out.
    mutating func noteSqueezed(samples: Int) {
        allowance -= Double(samples)
    }
}
