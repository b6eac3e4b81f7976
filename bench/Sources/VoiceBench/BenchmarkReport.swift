import Foundation

/// One measured figure, printed in the table and as one JSON line.
struct BenchmarkFigure {
    var metric: String
    var value: Double
    var unit: String
    /// The same figure for the reference measured in the same run, where there is one.
    var baseline: Double?
    /// What the figure must reach, where the issue sets a target for it.
    var target: BenchmarkTarget?
}

/// A bound a figure must respect; failing it fails the benchmark.
struct BenchmarkTarget {
    enum Comparison: String {
        case atMost = "<="
        case atLeast = ">="
        case below = "<"
    }

    var comparison: Comparison
    var limit: Double

    static func atMost(_ limit: Double) -> BenchmarkTarget { BenchmarkTarget(comparison: .atMost, limit: limit) }
    static func atLeast(_ limit: Double) -> BenchmarkTarget { BenchmarkTarget(comparison: .atLeast, limit: limit) }
    static func below(_ limit: Double) -> BenchmarkTarget { BenchmarkTarget(comparison: .below, limit: limit) }

    func isMet(by value: Double) -> Bool {
        switch comparison {
        case .atMost: value <= limit
        case .atLeast: value >= limit
        case .below: value < limit
        }
    }
}

/// Collects a benchmark's figures and threshold checks, then prints a table followed by one
/// JSON line per figure: `{"bench": …, "metric": …, "value": …, "unit": …, "baseline": …}`.
struct BenchmarkReport {
    let bench: String
    private(set) var figures: [BenchmarkFigure] = []
    private(set) var failures: [String] = []

    init(bench: String) {
        self.bench = bench
    }

    /// Adds a figure; with a `target`, also a threshold that the figure must meet.
    mutating func add(
        _ metric: String, _ value: Double, unit: String, baseline: Double? = nil, target: BenchmarkTarget? = nil
    ) {
        figures.append(BenchmarkFigure(metric: metric, value: value, unit: unit, baseline: baseline, target: target))
        if let target, !target.isMet(by: value) {
            failures.append(
                "\(metric) is \(format(value)) \(unit); the target is \(target.comparison.rawValue) \(format(target.limit))"
            )
        }
    }

    /// Records a threshold; a failed one makes the benchmark exit non-zero after printing.
    mutating func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { failures.append(message()) }
    }

    /// Prints the table and the JSON lines, and returns whether every threshold held.
    func finish() -> Bool {
        let metricWidth = max(6, figures.map(\.metric.count).max() ?? 0)
        print("")
        print(pad("metric", metricWidth) + "  " + pad("value", 14) + "  " + pad("baseline", 14) + "  ratio    unit")
        for figure in figures {
            let ratio = figure.baseline.map { $0 == 0 ? "-" : format(figure.value / $0, digits: 3) } ?? "-"
            print(
                pad(figure.metric, metricWidth) + "  " + pad(format(figure.value), 14) + "  "
                    + pad(figure.baseline.map { format($0) } ?? "-", 14) + "  " + pad(ratio, 7) + "  " + figure.unit
                    + (figure.target.map {
                        "  (target \($0.comparison.rawValue) \(format($0.limit)): \($0.isMet(by: figure.value) ? "met" : "MISSED"))"
                    } ?? ""))
        }
        for failure in failures { print("THRESHOLD FAILED: \(failure)") }
        for figure in figures {
            var line =
                "{\"bench\": \(json(bench)), \"metric\": \(json(figure.metric)), \"value\": \(format(figure.value))"
            line += ", \"unit\": \(json(figure.unit)), \"baseline\": \(figure.baseline.map { format($0) } ?? "null")"
            if let target = figure.target {
                line += ", \"target\": \(json(target.comparison.rawValue + " " + format(target.limit)))"
                line += ", \"pass\": \(target.isMet(by: figure.value))"
            }
            line += "}"
            print(line)
        }
        return failures.isEmpty
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func format(_ value: Double, digits: Int = 4) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        let magnitude = abs(value)
        let places = magnitude >= 100 ? 1 : magnitude >= 1 ? digits - 1 : digits + 2
        var text = String(format: "%.\(places)f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private func json(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
