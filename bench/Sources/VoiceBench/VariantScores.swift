/// PESQ-WB scores and delays of named variants of a call, one per fixture, and their means.
struct VariantScores {
    private var scores: [String: [(pesq: Double, delay: Double)]] = [:]

    /// Records one fixture's scores of `files` (each a variant's name and its heard WAV).
    mutating func record(_ scored: [String: SpeechScorer.Score], files: [(name: String, file: String)]) {
        for (name, file) in files {
            scores[name, default: []].append((scored[file]?.pesq_wb ?? 0, scored[file]?.delay_ms ?? 0))
        }
    }

    /// The mean PESQ-WB of a variant over the fixtures.
    func meanPESQ(_ name: String) -> Double { mean(scores[name, default: []].map(\.pesq)) }

    /// The mean delay of a variant over the fixtures, ms.
    func meanDelay(_ name: String) -> Double { mean(scores[name, default: []].map(\.delay)) }

    private func mean(_ values: [Double]) -> Double {
        values.reduce(0, +) / Double(max(values.count, 1))
    }
}
