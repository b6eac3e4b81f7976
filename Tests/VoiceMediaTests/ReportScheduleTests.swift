import Testing
import VoiceCore
import VoiceMedia

@Suite struct ReportScheduleTests {
    /// Regular reports come once per interval, counted from the last report; loss the sender's
    /// protection cannot repair asks for one sooner, but never within the gap of the last.
    @Test func reportsComeOncePerIntervalAndEarlyNoCloserThanTheGap() {
        var schedule = ReportSchedule(interval: .milliseconds(500), minimumGap: .milliseconds(100), start: 0)
        #expect(!schedule.isDue(at: .milliseconds(499), unrepairableLoss: false))
        #expect(schedule.isDue(at: .milliseconds(500), unrepairableLoss: false))
        #expect(!schedule.isDue(at: .milliseconds(99), unrepairableLoss: true))
        #expect(schedule.isDue(at: .milliseconds(100), unrepairableLoss: true))

        schedule.reported(at: .milliseconds(100))
        #expect(!schedule.isDue(at: .milliseconds(199), unrepairableLoss: true))
        #expect(schedule.isDue(at: .milliseconds(200), unrepairableLoss: true))
        #expect(!schedule.isDue(at: .milliseconds(599), unrepairableLoss: false))
        #expect(schedule.isDue(at: .milliseconds(600), unrepairableLoss: false))
    }
}
