/// Measurements of captured or played signals, for assertions.
enum SignalAnalysis {
    /// The frequency of a tone from its rising zero crossings: (crossings - 1) whole cycles
    /// between the first and the last crossing.
    static func toneFrequency<Sample: BinaryFloatingPoint>(_ samples: ArraySlice<Sample>, sampleRate: Int) -> Double {
        var crossings: [Int] = []
        var previous = samples.first ?? 0
        for index in samples.indices.dropFirst() {
            let sample = samples[index]
            if previous < 0 && sample >= 0 { crossings.append(index) }
            previous = sample
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * Double(sampleRate) / Double(last - first)
    }

    static func rms(_ samples: ArraySlice<Float>) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }
}
