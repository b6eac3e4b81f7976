import Testing

@testable import voicechat

/// `echo-test`'s delay measure on levels made up to known lags.
@Suite struct EnvelopeLagTests {
    /// Bursts of "speech" at irregular times, as 10 ms levels.
    private func levels(blocks: Int, shiftedBy shift: Int = 0) -> [Float] {
        (0..<blocks).map { block in
            let time = block - shift
            return time >= 0 && (time % 37 < 15 || time % 53 < 9) ? -20 : -70
        }
    }

    @Test func findsTheLagBetweenWhatWasCapturedAndWhatWasPlayed() throws {
        let captured = levels(blocks: 800)
        let played = levels(blocks: 800, shiftedBy: 9)
        let lag = try #require(EnvelopeLag.measure(captured: captured, played: played, startOffsetMilliseconds: 0))
        #expect(abs(lag.milliseconds - 90) < 5)
        #expect(lag.correlation > 0.9)
    }

    @Test func allowsForTheSpeakerStartingLater() throws {
        // The speaker's count began 30 ms after the microphone's: 90 ms of delay shows as 60.
        let captured = levels(blocks: 800)
        let played = levels(blocks: 800, shiftedBy: 6)
        let lag = try #require(EnvelopeLag.measure(captured: captured, played: played, startOffsetMilliseconds: 30))
        #expect(abs(lag.milliseconds - 90) < 5)
    }

    @Test func silenceOrUnrelatedSoundIsNotAMatch() {
        let captured = levels(blocks: 800)
        #expect(
            EnvelopeLag.measure(
                captured: captured, played: [Float](repeating: -70, count: 800),
                startOffsetMilliseconds: 0) == nil)
        let unrelated: [Float] = (0..<800).map { $0 % 23 < 4 ? -20 : -70 }
        let lag = EnvelopeLag.measure(captured: captured, played: unrelated, startOffsetMilliseconds: 0)
        #expect((lag?.correlation ?? 0) < 0.5)
    }
}
