import ArgumentParser
import Foundation

/// `bench/run all`: every benchmark of the project, one after the other, each in a process of
/// its own, and one report of all their figures with targets, baselines and verdicts.
struct AllBenchmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all",
        abstract: "Runs every benchmark and writes a markdown report with every figure, its target and baseline.",
        discussion: """
            Runs codec, ring, quality, pipeline, seal, failover, relay, latency and e2e with their default \
            sizes (about 15-30 minutes on two cores), or with reduced sizes under --quick (a few \
            minutes; the figures are then rough). Pass more options to one benchmark with \
            --options, e.g. --options 'relay=--participants 100,1000' (repeatable); they follow the \
            defaults, so a later option overrides. Each benchmark's output goes to NAME.log in the \
            report folder, its plots to NAME/; REPORT.md holds the table. A benchmark that fails is \
            reported as such and the others still run.
            """)

    static let benchmarks = [
        "codec", "ring", "quality", "pipeline", "engine-rt", "echo", "seal", "failover", "relay", "latency", "e2e",
        "chaos", "proximity", "cluster", "span", "fuzz",
    ]
    /// Benchmarks that write reports (WAVs, plots) and take --report-directory.
    static let plotting: Set = ["quality", "relay", "latency", "e2e", "echo"]

    static let quickOptions: [String: [String]] = [
        "codec": ["--repetitions", "3"],
        "ring": ["--periods", "1000", "--device-seconds", "1", "--throughput-frames", "2000000", "--repetitions", "3"],
        "quality": ["--fixtures", "speech-female.wav"],
        "pipeline": ["--seconds", "6", "--repetitions", "2"],
        "engine-rt": ["--seconds", "5"],
        "echo": ["--delays", "90"],
        "proximity": ["--seconds", "10"],
        "fuzz": ["--seconds", "3"],
        "seal": ["--batch", "500", "--repetitions", "5"],
        "failover": ["--repetitions", "3"],
        "relay": ["--participants", "100,1000", "--seconds", "2", "--soak-seconds", "0"],
        "latency": ["--seconds", "5", "--warmup", "2"],
        "e2e": ["--frames", "20", "--conditions", "clean,loss10,bursty10"],
        "cluster": ["--matches", "50"],
        "span": ["--players", "300", "--talkers", "30", "--groups", "12", "--seconds", "8"],
    ]

    @Option(help: "Where to write the report (default: bench/reports/<timestamp>).") var reportDirectory: String?
    @Flag(help: "Reduced sizes: a few minutes in all, rough figures.") var quick = false
    @Option(
        parsing: .upToNextOption,
        help: "Only these benchmarks (default: every one).")
    var only: [String] = []
    @Option(help: "More options for one benchmark, as NAME=OPTIONS (repeatable).") var options: [String] = []

    func validate() throws {
        for name in only where !Self.benchmarks.contains(name) {
            throw ValidationError("unknown benchmark \(name): use \(Self.benchmarks.joined(separator: ", "))")
        }
        for option in options {
            guard let name = option.split(separator: "=", maxSplits: 1).first, Self.benchmarks.contains(String(name)),
                option.contains("=")
            else {
                throw ValidationError("--options takes NAME=OPTIONS with NAME one of the benchmarks, not \(option)")
            }
        }
    }

    func run() throws {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stamp = formatter.string(from: Date())
        let folder = reportDirectory ?? projectRoot + "/bench/reports/" + stamp
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let selected = only.isEmpty ? Self.benchmarks : Self.benchmarks.filter { only.contains($0) }

        var outcomes: [SuiteOutcome] = []
        for name in selected {
            var arguments = [name]
            if quick { arguments += Self.quickOptions[name] ?? [] }
            for option in options where option.hasPrefix(name + "=") {
                arguments += option.dropFirst(name.count + 1).split(separator: " ").map(String.init)
            }
            if Self.plotting.contains(name) { arguments += ["--report-directory", folder + "/" + name] }
            print("== bench/run \(arguments.joined(separator: " "))")
            // The child writes straight to the same output; ours must not wait in a buffer.
            fflush(nil)
            let started = Date()
            let outcome = runBenchmark(name: name, arguments: arguments, log: folder + "/\(name).log")
            outcomes.append(outcome)
            print(
                "== \(name): \(outcome.verdict) in \(Int(Date().timeIntervalSince(started))) s, "
                    + "\(outcome.figures.count) figures")
            fflush(nil)
        }
        let markdown = SuiteReport(outcomes: outcomes, quick: quick, folder: folder).markdown()
        try markdown.write(toFile: folder + "/REPORT.md", atomically: true, encoding: .utf8)
        print("")
        print(markdown)
        print("report: \(folder)")
        if outcomes.contains(where: { !$0.passed }) { throw ExitCode.failure }
    }

    /// Runs `bench/run ARGUMENTS` as a child (the allocation interposer stays preloaded), copies its
    /// output to ours and to `log`, and reads its figures and failed thresholds.
    private func runBenchmark(name: String, arguments: [String], log: String) -> SuiteOutcome {
        var outcome = SuiteOutcome(name: name, arguments: arguments)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        var text = Data()
        do {
            try process.run()
            let handle = output.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text.append(chunk)
                FileHandle.standardOutput.write(chunk)
            }
            process.waitUntilExit()
            outcome.exitStatus = process.terminationStatus
        } catch {
            outcome.launchError = "\(error)"
        }
        try? text.write(to: URL(fileURLWithPath: log))
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("THRESHOLD FAILED: ") {
                outcome.failedThresholds.append(String(line.dropFirst("THRESHOLD FAILED: ".count)))
            } else if line.hasPrefix("{\"bench\""), let figure = SuiteFigure(jsonLine: String(line)) {
                outcome.figures.append(figure)
            }
        }
        return outcome
    }
}
