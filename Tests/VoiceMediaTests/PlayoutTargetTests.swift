import Testing
import VoiceCore

@testable import VoiceMedia

/// The target rule alone: percentile, margin, repair reach, floor and ceiling, and the band.
@Suite struct PlayoutTargetTests {
    static let second = MediaTime.nanosecondsPerSecond

    @Test func theTargetIsThePercentilePlusAFrameOfMarginPlusTheRepairReachWithinTheCeiling() {
        var target = PlayoutTarget(configuration: JitterBufferConfiguration(frameDuration: .ms20))
        target.ceilingMilliseconds = 150
        #expect(target.milliseconds == 20, "no arrivals yet: a frame of margin")
        target.update(quantile: 7)
        #expect(target.milliseconds == 27)

        // Copies two frames back: the buffer waits two frames more for them.
        target.noteProtection(frames: 2, at: 0)
        target.update(quantile: 7)
        #expect(target.milliseconds == 67)

        // The budget's share caps it; what it would be stays visible.
        target.ceilingMilliseconds = 50
        #expect(target.milliseconds == 50)
        #expect(target.wantedMilliseconds == 67)
        #expect(target.isOverBudget(50 + target.upperBand + 0.5))
        #expect(!target.isOverBudget(50 + target.upperBand))
    }

    /// More protection counts at once; less only after the larger went unseen for two seconds,
    /// so one packet without copies does not drop the wait its neighbours' copies need.
    @Test func protectionFallsOnlyAfterItWentUnseenForAWhile() {
        var target = PlayoutTarget(configuration: JitterBufferConfiguration(frameDuration: .ms20))
        target.noteProtection(frames: 3, at: 0)
        target.noteProtection(frames: 0, at: Self.second)
        #expect(target.protectionFrames == 3)
        target.noteProtection(frames: 1, at: 2 * Self.second + 1)
        #expect(target.protectionFrames == 1)
    }

    @Test func theBandSitsMostlyUnderTheTargetAndIsAFrameAndTwoMillisecondsWideAtTenMilliseconds() {
        let target = PlayoutTarget(configuration: JitterBufferConfiguration(frameDuration: .ms10))
        #expect(target.lowerBand == -8.5)
        #expect(target.upperBand == 3.5)
        #expect(target.upperBand - target.lowerBand == 12)
        #expect(target.farAboveBand == 13.5)
    }

    /// Once the percentile has seen enough packets, longer frames keep the floor 1.5 ms over it
    /// (the target holds a frame of margin over it), so a frame the packets do not need can be
    /// given back; a young percentile keeps the band a frame and 2 ms wide.
    @Test func theBandsFloorIsAtMostOneAndAHalfMillisecondsOverAMaturePercentile() {
        var target = PlayoutTarget(configuration: JitterBufferConfiguration(frameDuration: .ms20))
        #expect(target.isEstimateYoung && target.lowerBand == -16)
        target.isEstimateYoung = false
        #expect(target.lowerBand == -18.5)
        #expect(target.upperBand == 6)
        #expect(target.farAboveBand == 26)
        var long = PlayoutTarget(configuration: JitterBufferConfiguration(frameDuration: .ms40))
        long.isEstimateYoung = false
        #expect(long.lowerBand == -38.5)
    }

    /// Held at the ceiling (the delay budget's share), the target is under what the delays and the
    /// repair want, and the band keeps to a frame and 2 ms under its top.
    @Test func heldAtTheCeilingTheBandIsAFrameAndTwoMillisecondsWide() {
        var target = PlayoutTarget(configuration: JitterBufferConfiguration(frameDuration: .ms20))
        target.isEstimateYoung = false
        target.ceilingMilliseconds = 60
        target.update(quantile: 30)
        #expect(!target.isHeldByCeiling && target.lowerBand == -18.5)
        target.noteProtection(frames: 1, at: 0)
        target.update(quantile: 30)
        #expect(target.milliseconds == 60 && target.wantedMilliseconds == 70)
        #expect(target.isHeldByCeiling)
        #expect(target.lowerBand == -16 && target.upperBand - target.lowerBand == 22)
    }
}
