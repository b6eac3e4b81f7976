import Foundation

/// The test signal of the latency benchmark and the search for it at the far end.
///
/// Each click is a short Hann-windowed chirp (400 Hz to 3 kHz): loud enough for the sender's
/// speech gate, inside the band Opus codes best, and with a single sharp cross-correlation peak
/// (a pure tone would have one per cycle). Clicks are far enough apart that the gate closes and
/// the listener's jitter buffer may settle between them, as between words.
struct ClickTrain {
    static let sampleRate = 48_000
    let intervalSeconds: Double
    let clickSamples: Int
    let click: [Float]

    init(intervalSeconds: Double, clickMilliseconds: Double = 10, amplitude: Float = 0.6) {
        self.intervalSeconds = intervalSeconds
        clickSamples = Int(clickMilliseconds * Double(Self.sampleRate) / 1_000)
        let count = clickSamples
        let duration = Double(count) / Double(Self.sampleRate)
        click = (0..<count).map { index in
            let time = Double(index) / Double(Self.sampleRate)
            // Linear chirp: the phase is the integral of a frequency rising from f0 to f1.
            let f0 = 400.0
            let f1 = 3_000.0
            let phase = 2 * Double.pi * (f0 * time + (f1 - f0) * time * time / (2 * duration))
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(count - 1))
            return amplitude * Float(window * sin(phase))
        }
    }

    /// `seconds` of signal: silence for `leadSeconds`, then one click per interval.
    func signal(seconds: Double, leadSeconds: Double) -> [Float] {
        let total = Int(seconds * Double(Self.sampleRate))
        var samples = [Float](repeating: 0, count: total)
        let step = Int(intervalSeconds * Double(Self.sampleRate))
        var start = Int(leadSeconds * Double(Self.sampleRate))
        while start + clickSamples <= total {
            samples.replaceSubrange(start..<(start + clickSamples), with: click)
            start += step
        }
        return samples
    }

    /// One click as it was found at the far end.
    struct Arrival {
        /// When the click entered the near end, in seconds from the start of the recording.
        var sentSeconds: Double
        /// Milliseconds from the near end to the far end.
        var latencyMilliseconds: Double
        /// Normalised cross-correlation at the chosen lag (1: the same waveform).
        var correlation: Double
        /// False when no lag correlated well enough: the click was lost on the way.
        var isFound: Bool
    }

    /// Finds each click of `reference` (the signal as it entered the near end) in `received`
    /// (what came out of the far end, recorded on the same clock) by normalised cross-correlation
    /// over lags 0 … `maximumLatencyMilliseconds`. Clicks whose best correlation stays below
    /// `minimumCorrelation` count as not found.
    func arrivals(
        reference: [Float], received: [Float], maximumLatencyMilliseconds: Double, minimumCorrelation: Double = 0.5
    ) -> [Arrival] {
        let maximumLag = Int(maximumLatencyMilliseconds * Double(Self.sampleRate) / 1_000)
        let threshold: Float = 0.05 * (click.map { abs($0) }.max() ?? 1)
        let refractory = Int(intervalSeconds * Double(Self.sampleRate) / 2)
        var found: [Arrival] = []
        var index = 0
        while index < reference.count {
            guard abs(reference[index]) > threshold else {
                index += 1
                continue
            }
            // The window starts a little before the first loud sample, where the chirp begins.
            let onset = max(0, index - clickSamples / 4)
            let length = clickSamples + clickSamples / 4
            index = onset + refractory
            guard onset + length + maximumLag <= received.count, onset + length <= reference.count else { break }
            let template = Array(reference[onset..<(onset + length)])
            let templateEnergy = template.reduce(0.0) { $0 + Double($1 * $1) }
            var bestLag = -1
            var best = 0.0
            received.withUnsafeBufferPointer { far in
                // Running energy of the far window, updated sample by sample.
                var windowEnergy = 0.0
                for offset in 0..<length { windowEnergy += Double(far[onset + offset] * far[onset + offset]) }
                for lag in 0...maximumLag {
                    if lag > 0 {
                        let leaving = Double(far[onset + lag - 1])
                        let entering = Double(far[onset + lag + length - 1])
                        windowEnergy += entering * entering - leaving * leaving
                    }
                    guard windowEnergy > 1e-9 else { continue }
                    var dot: Float = 0
                    let base = onset + lag
                    for offset in 0..<length { dot += template[offset] * far[base + offset] }
                    let normalised = Double(dot) / (templateEnergy * max(windowEnergy, 1e-12)).squareRoot()
                    if normalised > best {
                        best = normalised
                        bestLag = lag
                    }
                }
            }
            found.append(
                Arrival(
                    sentSeconds: Double(onset) / Double(Self.sampleRate),
                    latencyMilliseconds: Double(max(bestLag, 0)) * 1_000 / Double(Self.sampleRate), correlation: best,
                    isFound: bestLag >= 0 && best >= minimumCorrelation))
        }
        return found
    }
}
