import Testing
import VoiceCodec
import VoiceCore
import VoiceWire

@testable import VoiceMedia

@Suite("Receive stream squeezing")
struct ReceiveStretchingTests {
    static let period = FrameDuration.ms20.nanoseconds
    static let frame = 960

    /// 12 s of speech over a path whose delay is 60 ms for the first 6 s and 20 ms after: a route
    /// that gets faster while someone talks, leaving the delay 40 ms over its target.
    static func fasterPathRun(squeezing: Bool) throws -> (
        ReceiveStatistics, delays: [Int: Double], squeezed: [Int: Int]
    ) {
        let frames = try encodeFrames(Array(try ReceiveFixture.speech()[0..<(48_000 * 12)]), inbandFEC: false)
        let packets = try makePackets(frames) { index in
            MediaTime(index) * Self.period + MediaTime.milliseconds(index < 300 ? 60 : 20)
        }
        var harness = try ReceiveHarness(configuration: JitterBufferConfiguration(timeStretching: squeezing))
        var delays: [Int: Double] = [:]
        var squeezed: [Int: Int] = [:]
        harness.observe = { tick, stream in
            delays[tick] = stream.statistics.playoutDelayMilliseconds
            squeezed[tick] = stream.statistics.samplesSqueezed
        }
        _ = harness.run(packets.map(\.packet), ticks: frames.count + 10)
        return (harness.stream.statistics, delays, squeezed)
    }

    /// With squeezing on, the delay the faster path left comes down inside the speech by squeezing
    /// it, within a second as the low-energy frames skipped without it do, to where it is no longer
    /// far over its target; over any second no more
    /// than a tenth of the samples played (and one longest stretch saved up) is squeezed out, and
    /// nothing is lost or concealed for it. Off, as shipped, nothing is ever squeezed.
    @Test func aDelayFarOverItsTargetIsSqueezedOutWithinTheRateBound() throws {
        let (squeezing, delays, squeezed) = try Self.fasterPathRun(squeezing: true)
        let (shipped, shippedDelays, shippedSqueezed) = try Self.fasterPathRun(squeezing: false)
        let secondLater = (350..<400).compactMap { delays[$0] }.max()!
        let shippedSecondLater = (350..<400).compactMap { shippedDelays[$0] }.max()!
        let rightAfter = (300..<305).compactMap { delays[$0] }.max()!
        print(
            "path 40 ms faster at 6 s: delay a second later at most \(secondLater) ms squeezing, "
                + "\(shippedSecondLater) ms as shipped; squeezed away \(squeezing.framesSqueezedAway) frames "
                + "(\(squeezing.samplesSqueezed) samples), skipped \(squeezing.framesDropped) against "
                + "\(shipped.framesDropped)")
        // 20 ms over the fastest path (the frame of margin) before, 60 right after the path got faster.
        #expect(delays[299]! < 25 && rightAfter > 55)
        #expect(squeezing.framesSqueezedAway >= 1)
        // Back inside the frame that marks a delay as far over its target.
        #expect(secondLater <= 41 && shippedSecondLater <= 41)
        let bound =
            Int(JitterBufferConfiguration.maximumStretchRate * 50 * Double(Self.frame))
            + SpeechTimeScaler.longestStretch
        for start in 0..<(squeezed.count - 50) {
            let inSecond = squeezed[start + 50]! - squeezed[start]!
            #expect(inSecond <= bound, "\(inSecond) samples squeezed in the second from tick \(start)")
        }
        #expect(squeezing.packetsLost == 0 && squeezing.concealedSamples == shipped.concealedSamples)
        #expect(shipped.samplesSqueezed == 0 && shipped.framesSqueezedAway == 0 && shippedSqueezed.values.max() == 0)
    }
}
