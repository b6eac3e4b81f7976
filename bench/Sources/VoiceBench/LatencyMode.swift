/// One configuration the latency benchmark measures: the engine's frame length and jitter-buffer
/// target, and the device period of the JACK server and of every ALSA device in the chain.
struct LatencyMode {
    var name: String
    var frameMilliseconds: Double
    var periodFrames: Int
    var marginFrames: Double
    /// The targets of the engine's delay (mouth to ear minus the network's share), in ms.
    var targetP50: Double
    var targetP95: Double?

    /// 10 ms frames, 10 ms device periods, the engine's default jitter-buffer target.
    static let standard = LatencyMode(
        name: "10 ms frames", frameMilliseconds: 10, periodFrames: 480, marginFrames: 1,
        targetP50: 40, targetP95: 60)

    /// The low-latency configuration: 5 ms frames, 5 ms (240-frame) device periods, and the
    /// smallest safe jitter-buffer target.
    static func lowLatency(marginFrames: Double) -> LatencyMode {
        LatencyMode(
            name: "5 ms low-latency", frameMilliseconds: 5, periodFrames: 240, marginFrames: marginFrames,
            targetP50: 25, targetP95: nil)
    }
}
