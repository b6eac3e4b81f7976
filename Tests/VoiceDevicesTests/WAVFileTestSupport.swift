import Foundation
import VoiceCore
import VoiceSimulation

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct WAVFileTemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "wavfile-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

enum WAVFileFixtures {
    /// The repository's Fixtures/ directory, found from this source file.
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    /// A deterministic signal that uses the whole range: a sine plus pseudo-random noise.
    static func busySignal(frames: Int, channels: Int = 1) -> [Float] {
        var state: UInt32 = 12_345
        return (0..<frames * channels).map { index in
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Float(Int32(bitPattern: state)) / Float(Int32.max)
            return 0.6 * Float(sin(Double(index) * 0.05)) + 0.3 * noise
        }
    }

    /// Reads `source` on demand until it ends, in reads of `chunk` frames.
    static func drain(_ source: some AudioInput, chunk: Int = 700) -> [Float] {
        var collected: [Float] = []
        var buffer = [Float](repeating: 0, count: chunk * source.format.channels)
        while true {
            let frames = buffer.withUnsafeMutableBufferPointer { source.read(into: $0) }
            if frames == 0 { break }
            collected.append(contentsOf: buffer[0..<frames * source.format.channels])
        }
        return collected
    }

    /// The largest difference between `samples` and a sine of `frequency` and `amplitude` at
    /// `sampleRate` that starts at sample 0 with phase 0, over `range`.
    static func deviationFromSine(
        _ samples: [Float], frequency: Double, amplitude: Float, sampleRate: Int, range: Range<Int>
    ) -> Float {
        var worst: Float = 0
        for index in range {
            let ideal = amplitude * Float(sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)))
            worst = max(worst, abs(samples[index] - ideal))
        }
        return worst
    }

    /// Rising zero crossings per second: a frequency estimate.
    static func estimatedFrequency(_ samples: [Float], sampleRate: Int) -> Double {
        var crossings = 0
        for index in 1..<samples.count where samples[index - 1] < 0 && samples[index] >= 0 { crossings += 1 }
        return Double(crossings) * Double(sampleRate) / Double(samples.count)
    }
}
