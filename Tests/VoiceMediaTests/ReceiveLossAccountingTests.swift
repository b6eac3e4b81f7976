import Testing

@testable import VoiceMedia

/// A receiver report's loss figures, booked frame by frame without a stream around them.
@Suite struct ReceiveLossAccountingTests {
    @Test func missingFramesAreBookedByBurstAndReportedOncePerInterval() {
        var loss = ReceiveLossAccounting()
        // 20 frames: a burst of 3, then one of 1, the rest played.
        #expect(loss.book(gap: 0, arrivedLate: 0, protectionFrames: 2) == 0)
        #expect(loss.book(gap: 3, arrivedLate: 0, protectionFrames: 2) == 3)
        #expect(loss.book(gap: 1, arrivedLate: 0, protectionFrames: 2) == 1)
        for _ in 0..<13 { _ = loss.book(gap: 0, arrivedLate: 0, protectionFrames: 2) }
        #expect(loss.hasUnrepairableLoss, "a burst of 3 is past copies reaching 2 frames back")
        let report = loss.closeInterval()
        #expect(report.fractionLost == Float(4) / 20)
        #expect(report.meanBurstLength == 2)
        #expect(report.cumulativeLost == 4)

        // The next interval starts afresh; the cumulative count goes on.
        #expect(!loss.hasUnrepairableLoss)
        _ = loss.book(gap: 0, arrivedLate: 0, protectionFrames: 2)
        let clean = loss.closeInterval()
        #expect(clean.fractionLost == 0 && clean.meanBurstLength == 0 && clean.cumulativeLost == 4)
    }

    /// A packet that came after its turn was received, not lost: before the booking it is left out
    /// of the gap, after it it is taken back, from the interval and from the running count.
    @Test func packetsThatCameLateAreNotLoss() {
        var loss = ReceiveLossAccounting()
        #expect(loss.book(gap: 2, arrivedLate: 1, protectionFrames: 2) == 1)
        #expect(loss.book(gap: 2, arrivedLate: 0, protectionFrames: 2) == 2)
        loss.noteLateArrival()
        #expect(!loss.hasUnrepairableLoss)
        let report = loss.closeInterval()
        #expect(report.fractionLost == Float(2) / 6)
        #expect(report.cumulativeLost == 2)
        // More late packets than losses never turn the count negative.
        for _ in 0..<3 { loss.noteLateArrival() }
        #expect(loss.closeInterval().cumulativeLost == 0)
    }
}
