import Foundation

/// Writes `rows` (JSON lines) to `directory`/results.jsonl and draws them with `script` of
/// bench/scoring into `directory`. A missing venv or a failed plot is reported, not thrown: the
/// figures stand without the picture.
func plotResults(script: String, rows: [String], directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let results = directory + "/results.jsonl"
    try (rows.joined(separator: "\n") + "\n").write(toFile: results, atomically: true, encoding: .utf8)
    guard FileManager.default.isExecutableFile(atPath: venvPython) else {
        print("no plot: the venv is missing (\(venvPython)); results are in \(results)")
        return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: venvPython)
    process.arguments = [projectRoot + "/bench/scoring/" + script, results, directory]
    var environment = ProcessInfo.processInfo.environment
    // The allocation interposer has no business in the plotting process.
    environment["LD_PRELOAD"] = nil
    process.environment = environment
    try process.run()
    process.waitUntilExit()
    print(process.terminationStatus == 0 ? "plot: \(directory) (\(script))" : "plotting failed (\(script))")
}
