import Foundation

/// One figure of a benchmark, as its JSON line gave it.
struct SuiteFigure {
    var bench: String
    var metric: String
    var value: Double
    var unit: String
    var baseline: Double?
    /// The target printed with the figure, if it had one.
    var target: String?
    var pass: Bool?

    init?(jsonLine: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(jsonLine.utf8)) as? [String: Any],
            let bench = object["bench"] as? String, let metric = object["metric"] as? String,
            let value = (object["value"] as? NSNumber)?.doubleValue
        else { return nil }
        self.bench = bench
        self.metric = metric
        self.value = value
        unit = object["unit"] as? String ?? ""
        baseline = (object["baseline"] as? NSNumber)?.doubleValue
        target = object["target"] as? String
        pass = (object["pass"] as? NSNumber)?.boolValue
    }
}

/// What one benchmark of `bench/run all` did.
struct SuiteOutcome {
    var name: String
    var arguments: [String]
    var exitStatus: Int32 = -1
    var launchError: String?
    var figures: [SuiteFigure] = []
    var failedThresholds: [String] = []

    var passed: Bool { launchError == nil && exitStatus == 0 }

    var verdict: String {
        if let launchError { return "could not start (\(launchError))" }
        if exitStatus == 0 { return "passed" }
        if figures.isEmpty { return "FAILED before printing figures (exit status \(exitStatus))" }
        return "FAILED (\(failedThresholds.count) threshold\(failedThresholds.count == 1 ? "" : "s") missed)"
    }
}

/// The markdown report of `bench/run all`: a summary, then every figure with its target, the
/// same-run baseline and the verdict, then the plots.
struct SuiteReport {
    var outcomes: [SuiteOutcome]
    var quick: Bool
    var folder: String

    func markdown() -> String {
        var lines: [String] = []
        lines.append("# Benchmark report")
        lines.append("")
        let host = ProcessInfo.processInfo.hostName
        lines.append(
            "\(ISO8601DateFormatter().string(from: Date())), \(host), "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores"
                + (quick ? ", **quick run: reduced sizes, rough figures**" : ""))
        lines.append("")
        lines.append("| benchmark | result | command |")
        lines.append("|---|---|---|")
        for outcome in outcomes {
            lines.append(
                "| \(outcome.name) | \(outcome.verdict) | `bench/run \(outcome.arguments.joined(separator: " "))` |")
        }
        lines.append("")
        lines.append("| benchmark | figure | value | baseline | ratio | unit | target | met |")
        lines.append("|---|---|---:|---:|---:|---|---|---|")
        for figure in outcomes.flatMap(\.figures) {
            let ratio = figure.baseline.flatMap { $0 == 0 ? nil : format(figure.value / $0) } ?? ""
            let verdict = figure.pass.map { $0 ? "yes" : "**NO**" } ?? ""
            lines.append(
                "| \(figure.bench) | \(escape(figure.metric)) | \(format(figure.value)) | "
                    + "\(figure.baseline.map(format) ?? "") | \(ratio) | \(escape(figure.unit)) | "
                    + "\(escape(figure.target ?? "")) | \(verdict) |")
        }
        let failures = outcomes.filter { !$0.failedThresholds.isEmpty || !$0.passed }
        if !failures.isEmpty {
            lines.append("")
            lines.append("## Failures")
            lines.append("")
            for outcome in failures {
                if outcome.failedThresholds.isEmpty {
                    lines.append("- \(outcome.name): \(outcome.verdict); see \(outcome.name).log")
                }
                for threshold in outcome.failedThresholds {
                    lines.append("- \(outcome.name): \(escape(threshold))")
                }
            }
        }
        let plots = pngFiles()
        if !plots.isEmpty {
            lines.append("")
            lines.append("## Plots")
            lines.append("")
            for plot in plots { lines.append("![\(plot)](\(plot))") }
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }

    /// The PNG files the benchmarks wrote under the report folder, relative to it.
    private func pngFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let path = enumerator.nextObject() as? String {
            if path.hasSuffix(".png") { found.append(path) }
        }
        return found.sorted()
    }

    private func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        let magnitude = abs(value)
        return String(format: magnitude >= 100 ? "%.1f" : magnitude >= 1 ? "%.3f" : "%.4g", value)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
