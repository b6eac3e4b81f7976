/// The targets the existing benchmarks check with `require` but do not print with their figures,
/// so that `bench/run all` can show each figure's target and whether it was met. A figure that
/// carries its own target in its JSON line (`"target"`, `"pass"`) needs no entry here.
struct KnownTarget {
    var bench: String
    /// The metric's name, or its start when `isPrefix`, or its end when `isSuffix`.
    var metric: String
    var isPrefix = false
    var isSuffix = false
    /// The target in words, e.g. "<= 5".
    var text: String
    /// Whether `value` meets it; `figures` are the bench's other figures by metric.
    var check: @Sendable (_ value: Double, _ figures: [String: Double]) -> Bool

    func matches(bench: String, metric: String) -> Bool {
        guard bench == self.bench else { return false }
        if isPrefix && isSuffix { return false }
        if isPrefix { return metric.hasPrefix(self.metric) }
        if isSuffix { return metric.hasSuffix(self.metric) }
        return metric == self.metric
    }

    static func atMost(_ bench: String, _ metric: String, _ limit: Double, suffix: Bool = false) -> KnownTarget {
        KnownTarget(bench: bench, metric: metric, isSuffix: suffix, text: "<= \(limit.clean)") { value, _ in
            value <= limit
        }
    }

    static func atLeast(_ bench: String, _ metric: String, _ limit: Double, suffix: Bool = false) -> KnownTarget {
        KnownTarget(bench: bench, metric: metric, isSuffix: suffix, text: ">= \(limit.clean)") { value, _ in
            value >= limit
        }
    }

    static func below(_ bench: String, _ metric: String, _ limit: Double, suffix: Bool = false) -> KnownTarget {
        KnownTarget(bench: bench, metric: metric, isSuffix: suffix, text: "< \(limit.clean)") { value, _ in
            value < limit
        }
    }

    /// At least `factor` times another figure of the same bench.
    static func relative(_ bench: String, _ metric: String, atLeast factor: Double, of other: String) -> KnownTarget {
        KnownTarget(bench: bench, metric: metric, text: ">= \(factor.clean) × \(other)") { value, figures in
            guard let reference = figures[other] else { return false }
            return value >= factor * reference
        }
    }

    static let all: [KnownTarget] = [
        .atMost("codec", "swift overhead", 5),
        .atMost("codec", "allocations per encode+decode", 0),
        .atMost("ring", "ring loop allocations per period", 0),
        .atMost("ring", "WAV devices allocations per period", 0),
        .atMost("ring", "ALSA devices allocations per period", 0),
        .atLeast("pipeline", "two-engine call speed", 100),
        .atMost("pipeline", "engine allocations per frame, steady state", 0),
        .atMost("seal", " B allocations write+seal", 0, suffix: true),
        .atMost("seal", " B allocations open+parse", 0, suffix: true),
        .relative("quality", "pesq 10 % random", atLeast: 0.85, of: "pesq clean (engine vs opusenc/opusdec)"),
        .relative("quality", "pesq 10 % bursty", atLeast: 0.70, of: "pesq clean (engine vs opusenc/opusdec)"),
        .relative("quality", "pesq jitter 40 ms", atLeast: 0.95, of: "pesq clean (engine vs opusenc/opusdec)"),
        .atMost("quality", "p95 buffering delay, jitter 40 ms", 60),
        .atMost("quality", "late loss, jitter 40 ms", 0.5),
        .below("failover", "failover to 2nd direct pair, max", 1_000),
        .below("failover", "failover to app-carried, max", 1_000),
        .atLeast("relay", " forwarded packets/s per core", 250_000, suffix: true),
        .below("relay", " p99 delay", 2_000, suffix: true),
        .below("relay", " RSS growth", 4 * 1_048_576, suffix: true),
    ]
}

extension Double {
    /// Short decimal text without a trailing ".0".
    var clean: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
