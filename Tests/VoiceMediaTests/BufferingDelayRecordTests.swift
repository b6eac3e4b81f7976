import Testing
import VoiceCore

@testable import VoiceMedia

@Suite struct BufferingDelayRecordTests {
    @Test func theLastTheMeanAndThe95thPercentileOfTheWaits() {
        var record = BufferingDelayRecord()
        #expect(record.meanMilliseconds == nil && record.p95Milliseconds == nil && record.lastMilliseconds == 0)
        for milliseconds in 1...100 { record.record(MediaTime.milliseconds(Double(milliseconds))) }
        #expect(record.count == 100)
        #expect(record.lastMilliseconds == 100)
        #expect(record.meanMilliseconds == 50.5)
        // 95 of the 100 waited at most 95 ms; the histogram's steps round that up to 96.
        #expect(record.p95Milliseconds == 96)
    }

    @Test func aWaitBeyondASecondCountsAsASecondAndANegativeOneAsNone() {
        var record = BufferingDelayRecord()
        record.record(MediaTime.milliseconds(5_000))
        #expect(record.lastMilliseconds == 5_000)
        #expect(record.p95Milliseconds == 1_000)
        record.record(-MediaTime.milliseconds(3))
        #expect(record.lastMilliseconds == 0)
        #expect(record.meanMilliseconds == 2_500)
    }
}
