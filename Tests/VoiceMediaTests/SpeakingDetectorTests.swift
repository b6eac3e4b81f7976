import Testing
import VoiceCore
import VoiceMedia

@Suite struct SpeakingDetectorTests {
    private static let frameSeconds = 0.02

    /// Feeds one level per 20 ms frame and returns the transitions with their frame index.
    private static func run(_ detector: inout SpeakingDetector, _ levels: [Float]) -> [(
        Int, SpeakingDetector.Transition
    )] {
        levels.enumerated().compactMap { index, level in
            detector.update(levelDBFS: level, elapsedSeconds: frameSeconds).map { (index, $0) }
        }
    }

    @Test func startsAtTheStartThresholdAndNotBelowIt() throws {
        var detector = SpeakingDetector()
        #expect(Self.run(&detector, [-60, -45, -41, -40.5]).isEmpty)
        let transitions = Self.run(&detector, [-40])
        #expect(transitions.count == 1 && transitions[0].1 == .started)
        #expect(detector.isSpeaking)
    }

    @Test func levelsBetweenTheThresholdsKeepTheState() throws {
        var detector = SpeakingDetector()
        // Between -50 and -40: neither starts silence nor ends speech, however long it lasts.
        #expect(Self.run(&detector, [Float](repeating: -45, count: 100)).isEmpty)
        #expect(!detector.isSpeaking)
        _ = detector.update(levelDBFS: -30, elapsedSeconds: Self.frameSeconds)
        #expect(Self.run(&detector, [Float](repeating: -45, count: 100)).isEmpty)
        #expect(detector.isSpeaking)
    }

    @Test func stopsOnlyAfterTheHoldTimeBelowTheStopThreshold() throws {
        var detector = try SpeakingDetector(SpeakingDetector.Configuration(holdSeconds: 0.3))
        _ = detector.update(levelDBFS: -20, elapsedSeconds: Self.frameSeconds)
        // 280 ms quiet, then a word resets the hold.
        #expect(Self.run(&detector, [Float](repeating: -70, count: 14) + [-45]).isEmpty)
        let transitions = Self.run(&detector, [Float](repeating: -70, count: 20))
        // 300 ms = 15 frames below the stop threshold: the 15th frame stops it.
        #expect(transitions.count == 1)
        #expect(transitions.first?.0 == 14)
        #expect(transitions.first?.1 == .stopped)
        #expect(!detector.isSpeaking)
    }

    @Test func rejectsAStopThresholdNotBelowTheStartThreshold() {
        #expect(throws: DSPSettingError.self) {
            try SpeakingDetector(SpeakingDetector.Configuration(startThresholdDBFS: -50, stopThresholdDBFS: -40))
        }
        #expect(throws: DSPSettingError.self) {
            try SpeakingDetector(SpeakingDetector.Configuration(holdSeconds: -1))
        }
    }
}
