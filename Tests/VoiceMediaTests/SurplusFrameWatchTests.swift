import Testing
import VoiceCore

@testable import VoiceMedia

@Suite("Surplus frame watch")
struct SurplusFrameWatchTests {
    static let frame = MediaTime.milliseconds(20)

    /// Frames that each waited a frame and 3 ms more than needed, for two seconds: a surplus.
    /// One that waited less, or a restart, starts the two seconds over.
    @Test func aFrameIsSurplusOnlyWhenEveryFrameSparedItForTwoSeconds() {
        var watch = SurplusFrameWatch(frameMilliseconds: 20)
        for tick in 0...100 {
            watch.notePlayed(waitMilliseconds: 23, reachMilliseconds: 0, at: MediaTime(tick) * Self.frame)
        }
        #expect(watch.hasSurplusFrame(at: 100 * Self.frame))
        #expect(!watch.hasSurplusFrame(at: 99 * Self.frame))

        watch.notePlayed(waitMilliseconds: 22.9, reachMilliseconds: 0, at: 101 * Self.frame)
        for tick in 102...201 {
            watch.notePlayed(waitMilliseconds: 30, reachMilliseconds: 0, at: MediaTime(tick) * Self.frame)
        }
        #expect(!watch.hasSurplusFrame(at: 201 * Self.frame))
        #expect(watch.hasSurplusFrame(at: 202 * Self.frame))

        watch.restart()
        #expect(!watch.hasSurplusFrame(at: 300 * Self.frame))
    }

    /// A sender whose repair reaches a frame back needs its next packet in time too: the frame
    /// is surplus only when the waits exceed that reach as well.
    @Test func theSendersRepairReachIsNeededToo() {
        var watch = SurplusFrameWatch(frameMilliseconds: 20)
        for tick in 0...100 {
            watch.notePlayed(waitMilliseconds: 30, reachMilliseconds: 20, at: MediaTime(tick) * Self.frame)
        }
        #expect(!watch.hasSurplusFrame(at: 100 * Self.frame))
        for tick in 101...201 {
            watch.notePlayed(waitMilliseconds: 43, reachMilliseconds: 20, at: MediaTime(tick) * Self.frame)
        }
        #expect(watch.hasSurplusFrame(at: 201 * Self.frame))
    }
}
