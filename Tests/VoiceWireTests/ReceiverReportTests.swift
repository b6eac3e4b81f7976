import Testing
import VoiceWire

/// Reports quantise two fields on the wire: the fraction lost to steps of 1/256 (8 bits, RTCP-style)
/// and the mean burst length to 8.8 fixed point (steps of 1/256 packet). Both round to nearest, so
/// a round trip is exact to within half a step, 1/512.
@Suite struct ReceiverReportTests {
    func roundTrip(_ report: ReceiverReport) throws -> ReceiverReport {
        var buffer = [UInt8](repeating: 0, count: ReceiverReport.encodedBytes)
        let written = try buffer.withUnsafeMutableBytes { raw in try report.write(into: raw) }
        #expect(written == ReceiverReport.encodedBytes)
        return try buffer.withUnsafeBytes { raw in try ReceiverReport(parsing: raw) }
    }

    func report(fractionLost: Float, meanBurstLength: Float) -> ReceiverReport {
        ReceiverReport(
            reporter: 0x0102_0304, source: 0xFFFF_FFFF, channel: 0xABCD, highestSequence: 0xFFFF,
            fractionLost: fractionLost, meanBurstLength: meanBurstLength, cumulativeLost: 123_456,
            jitterSamples: 4_800, bufferDelayMilliseconds: 65_535)
    }

    @Test func exactFieldsSurvive() throws {
        let original = report(fractionLost: 0.25, meanBurstLength: 3)
        #expect(try roundTrip(original) == original)
    }

    @Test(arguments: [0.1, 0.05, 0.333, 0.4995] as [Float])
    func fractionLostIsQuantisedToA256th(fraction: Float) throws {
        let parsed = try roundTrip(report(fractionLost: fraction, meanBurstLength: 1))
        #expect(abs(parsed.fractionLost - fraction) <= 1.0 / 512)
        #expect((parsed.fractionLost * 256).rounded() == parsed.fractionLost * 256)
    }

    @Test(arguments: [1.0, 2.7, 3.333, 17.01] as [Float])
    func burstLengthIsQuantisedToEightEight(burst: Float) throws {
        let parsed = try roundTrip(report(fractionLost: 0, meanBurstLength: burst))
        #expect(abs(parsed.meanBurstLength - burst) <= 1.0 / 512)
    }

    @Test func outOfRangeValuesSaturate() throws {
        let full = try roundTrip(report(fractionLost: 1, meanBurstLength: 1_000))
        #expect(full.fractionLost == 255.0 / 256)
        #expect(full.meanBurstLength == 65_535.0 / 256)
        let invalid = try roundTrip(report(fractionLost: .nan, meanBurstLength: -4))
        #expect(invalid.fractionLost == 0)
        #expect(invalid.meanBurstLength == 0)
    }
}
