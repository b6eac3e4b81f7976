/// The engine's shipped settings, in one place: the CLI's options, the engine's and the send
/// pipeline's configurations, the simulations and the benchmarks all start from these, so that
/// what is measured is what ships.
public enum VoiceDefaults {
    /// Opus's sweet spot between header overhead and latency.
    public static let frameDuration = FrameDuration.ms20
    /// Wideband-to-superwideband speech with room for in-band FEC (libopus 1.3.1 emits FEC at
    /// this rate from a 5 % loss hint, never at 16 kbit/s).
    public static let bitrate = 32_000
    /// The best Opus has: at 32 kbit/s it scores clearly above complexity 5 on speech, for about
    /// 1.3 % of a core per encoder at 20 ms frames.
    public static let complexity = 10
    /// The CLI's ALSA period in frames: 10 ms at 48 kHz.
    public static let devicePeriodFrames = 480

    /// The most mouth-to-ear delay the engine itself may add (capture to playout, devices'
    /// own buffering excluded), in ms: 60 ms plus two frames, so 100 ms at 20 ms frames (ITU-T
    /// G.114 leaves the rest of its 150 ms one-way guidance to the network), 80 at 10 ms, 70 at 5.
    public static func maximumDelayMilliseconds(frameDuration: FrameDuration) -> Double {
        60 + 2 * frameDuration.milliseconds
    }
}
