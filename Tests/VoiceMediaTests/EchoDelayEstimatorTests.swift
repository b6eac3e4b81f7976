import Testing
import VoiceSimulation

@testable import VoiceMedia

@Suite struct EchoDelayEstimatorTests {
    /// Feeds `seconds` of white noise as the reference and `capture(reference, sample)` as the
    /// microphone, frame by frame; returns the delay reported after each frame.
    private func run(seconds: Double, capture: ([Float], Int) -> Float) -> [Int?] {
        let frame = 960
        let estimator = EchoDelayEstimator(frameSamples: frame, maximumDelaySamples: 24_000)
        let count = Int(seconds * 48_000) / frame * frame
        var random = SeededRandom(seed: 21)
        let reference = (0..<count).map { _ in Float.random(in: -0.1...0.1, using: &random) }
        let captured = (0..<count).map { capture(reference, $0) }
        var reported: [Int?] = []
        for start in stride(from: 0, to: count, by: frame) {
            reference.withUnsafeBufferPointer { reference in
                captured.withUnsafeBufferPointer { captured in
                    estimator.process(
                        reference: UnsafeBufferPointer(rebasing: reference[start..<(start + frame)]),
                        captured: UnsafeBufferPointer(rebasing: captured[start..<(start + frame)]))
                }
            }
            reported.append(estimator.delaySamples)
        }
        return reported
    }

    @Test func theDelayOfAnEchoInARoomIsFoundToTheSampleItWasDecimatedTo() {
        // 123.33 ms, then two reflections, and noise in the room.
        let delay = 5_920
        var noise = SeededRandom(seed: 4)
        let reported = run(seconds: 3) { reference, index in
            func played(_ lag: Int) -> Float { index >= lag ? reference[index - lag] : 0 }
            return 0.4 * played(delay) + 0.2 * played(delay + 150) - 0.15 * played(delay + 400)
                + Float.random(in: -0.01...0.01, using: &noise)
        }
        let first = reported.firstIndex { $0 != nil }
        #expect(first.map { $0 < 50 } == true, "reported after \(first.map(String.init) ?? "never") frames")
        #expect(reported.last == delay)
        #expect(reported.compactMap { $0 }.allSatisfy { $0 == delay })
    }

    @Test func aMicrophoneThatHearsNothingPlayedReportsNoDelay() {
        var noise = SeededRandom(seed: 9)
        let reported = run(seconds: 4) { _, _ in Float.random(in: -0.05...0.05, using: &noise) }
        #expect(reported.allSatisfy { $0 == nil })
    }

    @Test func aDelayThatChangesIsFollowed() {
        // The sound server's buffer grows from 100 to 250 ms after 3 s.
        let reported = run(seconds: 8) { reference, index in
            let lag = index < 144_000 ? 4_800 : 12_000
            return index >= lag ? 0.5 * reference[index - lag] : 0
        }
        #expect(reported[149] == 4_800)
        #expect(reported.last == 12_000)
    }
}
