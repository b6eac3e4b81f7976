import Testing
import VoiceCore
import VoiceSimulation

@Suite("Jitter buffer policy pieces")
struct JitterBufferPolicyTests {
    @Test func sequenceNumbersUnwrapAcrossTheWrapAndBackwards() {
        var unwrapper = SerialNumberUnwrapper<UInt16>()
        #expect(unwrapper.unwrap(65_534) == 0)
        #expect(unwrapper.unwrap(65_535) == 1)
        #expect(unwrapper.unwrap(0) == 2)
        #expect(unwrapper.unwrap(3) == 5)
        // Reordered: placed before the newest, which does not move back.
        #expect(unwrapper.unwrap(1) == 3)
        #expect(unwrapper.newest == 5)
        #expect(unwrapper.unwrap(65_530) == -4)
        #expect(unwrapper.newestValue == 3)
    }

    @Test func timestampsUnwrapAcrossTheWrap() {
        var unwrapper = SerialNumberUnwrapper<UInt32>()
        #expect(unwrapper.unwrap(UInt32.max - 959) == 0)
        #expect(unwrapper.unwrap(0) == 960)
        #expect(unwrapper.unwrap(960 * 100) == 960 * 101)
        #expect(unwrapper.position(of: UInt32.max - 959 - 960) == -960)
    }

    /// Relative delays uniform over 0…40 ms: the 95th percentile lands near 38 ms; a later
    /// calmer network takes over as the old entries fade.
    @Test func delayPercentileFollowsTheNetwork() {
        var estimator = ArrivalDelayEstimator(forgettingFactor: 0.998)
        var random = SeededRandom(seed: 3)
        for index in 0..<3_000 {
            let arrival = MediaTime(index) * 20_000_000
            let extra = MediaTime.random(in: 0...40_000_000, using: &random)
            estimator.record(transitOffset: 5_000_000 + extra, arrival: arrival + extra)
        }
        #expect(abs(estimator.quantile(0.95) - 38) <= 2)
        #expect(abs(estimator.quantile(0.5) - 20) <= 2)
        for index in 3_000..<6_000 {
            let arrival = MediaTime(index) * 20_000_000
            let extra = MediaTime.random(in: 0...10_000_000, using: &random)
            estimator.record(transitOffset: 5_000_000 + extra, arrival: arrival + extra)
        }
        #expect(estimator.quantile(0.95) <= 11)
    }

    /// The fastest-path reference follows a drifting clock instead of keeping the old minimum.
    @Test func referenceFollowsDrift() {
        var estimator = ArrivalDelayEstimator(windowNanoseconds: 2_000_000_000)
        // The transit offset grows 1 ms per second (a slow sender at 1000 ppm).
        for index in 0..<1_000 {
            let arrival = MediaTime(index) * 20_000_000
            estimator.record(transitOffset: arrival / 1_000, arrival: arrival)
        }
        let reference = estimator.minimumTransitOffset!
        #expect(reference >= 20_000_000 - 4_000_000 && reference <= 20_000_000)
        #expect(estimator.quantile(0.99) <= 5)
    }

    @Test func rfc3550JitterOfSteadyAndJitteredArrivals() {
        var steady = InterarrivalJitter()
        for index in 0..<100 {
            steady.record(arrival: MediaTime(index) * 20_000_000 + 7_000_000, timestamp: Int64(index) * 960)
        }
        #expect(steady.jitter == 0)
        var alternating = InterarrivalJitter()
        for index in 0..<2_000 {
            let extra: MediaTime = index % 2 == 0 ? 0 : 10_000_000
            alternating.record(arrival: MediaTime(index) * 20_000_000 + extra, timestamp: Int64(index) * 960)
        }
        // Every spacing deviates by 10 ms; the smoothed estimate converges to it.
        #expect(abs(alternating.milliseconds - 10) < 0.01)
    }

}
