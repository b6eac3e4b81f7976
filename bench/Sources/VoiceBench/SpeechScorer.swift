import ArgumentParser
import Foundation

/// Runs the PESQ scorer (bench/scoring/score.py in the project's venv) and reads its JSON lines.
struct SpeechScorer {
    struct Score: Decodable {
        var degraded: String
        var pesq_wb: Double?
        var delay_ms: Double?
        var window_delays_ms: [Double]?
        var error: String?
    }

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: venvPython) else {
            throw ValidationError("the scoring venv is missing (\(venvPython)): run scripts/setup.sh first")
        }
    }

    /// Scores every file in `degraded` against `reference`, keyed by path.
    func score(reference: String, degraded: [String]) throws -> [String: Score] {
        let output = try run(venvPython, [projectRoot + "/bench/scoring/score.py", reference] + degraded)
        var scores: [String: Score] = [:]
        for line in output.split(separator: "\n") {
            let score = try JSONDecoder().decode(Score.self, from: Data(line.utf8))
            if let error = score.error { throw ValidationError("scoring \(score.degraded) failed: \(error)") }
            scores[score.degraded] = score
        }
        return scores
    }

    /// Draws the plots from a results file into `directory`.
    func plot(results: String, into directory: String) throws {
        _ = try run(venvPython, [projectRoot + "/bench/scoring/plot.py", results, directory])
    }

    /// Runs a program to completion and returns its standard output; fails with its stderr.
    func run(_ program: String, _ arguments: [String]) throws -> String {
        try runToCompletion(program, arguments)
    }
}
