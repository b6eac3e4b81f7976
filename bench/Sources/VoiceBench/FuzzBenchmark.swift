import ArgumentParser
import Foundation
import VoiceFuzzTargets

/// `bench/run fuzz`: coverage-guided fuzzing of every parser of untrusted bytes with libFuzzer,
/// built with the address sanitizer (which also reports leaks).
struct FuzzBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "libFuzzer on every parser of untrusted bytes: executions, crashes and leaks per target.",
        discussion: """
            Builds the fuzz package (fuzz/) with -sanitize=fuzzer,address and runs each target for \
            --seconds, or until --runs executions, keeping its corpus in bench/reports/fuzz/corpus/TARGET \
            between runs and starting from the real traffic in fuzz/seeds/TARGET that the test suite \
            writes; an input that crashes or leaks is written to bench/reports/fuzz and fails the run. Targets: the \
            sealed envelope header and a whole envelope opened under a key, the voice packet, the \
            receiver report, the connectivity probe, relay messages, relay tokens, signalling frames \
            and messages, control-socket request lines, WAV headers and files.
            """
    )

    @Option(help: "Seconds to fuzz each target.")
    var seconds = 30

    @Option(help: "Executions to run each target for, instead of --seconds.")
    var runs: Int?

    @Option(
        help: "Longest input libFuzzer makes, in bytes (default: its own choice, which grows with the corpus).")
    var maxLength: Int?

    @Option(parsing: .upToNextOption, help: "Targets to run (default: all).")
    var targets: [String] = FuzzTarget.allCases.map(\.rawValue)

    /// What each target must reach.
    static let minimumExecutions = 10_000_000

    func validate() throws {
        guard seconds > 0 else { throw ValidationError("--seconds must be positive, not \(seconds).") }
        if let runs, runs <= 0 { throw ValidationError("--runs must be positive, not \(runs).") }
        if let maxLength, maxLength <= 0 { throw ValidationError("--max-length must be positive, not \(maxLength).") }
        let unknown = targets.filter { FuzzTarget(rawValue: $0) == nil }
        guard unknown.isEmpty else {
            throw ValidationError(
                "unknown target \(unknown.joined(separator: ", ")); the targets are "
                    + FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func run() throws {
        let fuzzer = try build()
        let directory = projectRoot + "/bench/reports/fuzz"
        var report = BenchmarkReport(bench: "fuzz")
        for name in targets {
            let corpus = directory + "/corpus/" + name
            try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
            let started = Date()
            let outcome = try fuzz(fuzzer, target: name, corpus: corpus, artifacts: directory + "/" + name + "-")
            let elapsed = Int(Date().timeIntervalSince(started).rounded())
            print(
                "\(name): \(outcome.executions) executions in \(elapsed) s, \(outcome.corpusEntries) corpus entries"
                    + (outcome.failure.map { ", FAILED: \($0)" } ?? ""))
            report.add(
                "\(name) executions", Double(outcome.executions), unit: "execs",
                target: .atLeast(Double(Self.minimumExecutions)))
            report.require(outcome.failure == nil, "\(name): \(outcome.failure ?? "")")
        }
        if !report.finish() { throw ExitCode.failure }
    }

    struct Outcome {
        var executions = 0
        var corpusEntries = 0
        /// The sanitizer's or libFuzzer's first error line, if the run found something.
        var failure: String?
    }

    /// Builds the fuzzer and returns its path.
    private func build() throws -> String {
        let arguments = [
            "build", "-c", "release", "--package-path", projectRoot + "/fuzz", "-Xswiftc", "-sanitize=fuzzer,address",
            "-Xswiftc", "-parse-as-library",
        ]
        // The harness's allocation counter is preloaded into it; the compiler and the fuzzer go without.
        _ = try runToCompletion("/usr/bin/env", ["swift"] + arguments, environment: ["LD_PRELOAD": nil])
        let binPath = try runToCompletion(
            "/usr/bin/env", ["swift"] + arguments + ["--show-bin-path"], environment: ["LD_PRELOAD": nil])
        return binPath.trimmingCharacters(in: .whitespacesAndNewlines) + "/VoiceFuzz"
    }

    private func fuzz(_ fuzzer: String, target: String, corpus: String, artifacts: String) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fuzzer)
        let limit = runs.map { "-runs=\($0)" } ?? "-max_total_time=\(seconds)"
        process.arguments =
            [limit, "-print_final_stats=1", "-artifact_prefix=\(artifacts)"]
            + (maxLength.map { ["-max_len=\($0)"] } ?? []) + [corpus]
        // Real traffic the test suite wrote (FuzzSeedCorpusTests) starts the search; new inputs go to `corpus`.
        let seeds = projectRoot + "/fuzz/seeds/" + target
        if FileManager.default.fileExists(atPath: seeds) { process.arguments?.append(seeds) }
        var environment = ProcessInfo.processInfo.environment
        // The harness's allocation counter is preloaded into it; the sanitizer must come first.
        environment["LD_PRELOAD"] = nil
        environment["FUZZ_TARGET"] = target
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var outcome = Outcome()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("stat::number_of_executed_units:") {
                outcome.executions = Int(line.split(separator: " ").last ?? "") ?? 0
            }
            if outcome.failure == nil, line.contains("ERROR: ") || line.contains("deadly signal") {
                outcome.failure = String(line)
            }
        }
        outcome.corpusEntries = (try? FileManager.default.contentsOfDirectory(atPath: corpus).count) ?? 0
        if process.terminationStatus != 0, outcome.failure == nil {
            outcome.failure = "the fuzzer exited with status \(process.terminationStatus)"
        }
        return outcome
    }
}
