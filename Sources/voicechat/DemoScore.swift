import Foundation
import VoiceDevices

/// How what one side said compares with what the other side heard: the delay, and a wideband
/// PESQ score when the scorer is set up.
enum DemoScore {
    static func describe(said: URL, heard: URL) -> String {
        if let scored = score(said: said, heard: heard) {
            return String(format: "delay %.0f ms, PESQ-WB %.2f", scored.delayMilliseconds, scored.pesq)
        }
        let delay: Int? = {
            guard let saidSamples = try? WAVFileInput.recording(path: said.path),
                let heardSamples = try? WAVFileInput.recording(path: heard.path)
            else { return nil }
            return SpeechDelay.estimate(said: saidSamples, heard: heardSamples)
        }()
        let delayText =
            delay.map { "delay \($0) ms" } ?? "delay not measurable (nothing heard lines up with what was said)"
        return delayText + " (for a PESQ score, set up the scorer: \(ProjectFiles.setupCommand))"
    }

    /// Runs bench/scoring/score.py; nil when it is not set up or fails.
    private static func score(said: URL, heard: URL) -> (pesq: Double, delayMilliseconds: Double)? {
        guard let scorer = ProjectFiles.scorer else { return nil }
        let process = Process()
        process.executableURL = scorer.python
        process.arguments = [scorer.script.path, said.path, heard.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first,
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let pesq = object["pesq_wb"] as? Double, let delay = object["delay_ms"] as? Double
        else { return nil }
        return (pesq, delay)
    }
}
