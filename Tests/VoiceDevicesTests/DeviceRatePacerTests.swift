import Testing
import VoiceCore
import VoiceDevices

/// A device loop is held to its rate only when the device runs ahead of any clock: a device that
/// keeps time (its buffer filled at once, then a period per period) is never held back, and one
/// that moves every period at once is held to its nominal rate.
@Suite struct DeviceRatePacerTests {
    static let period = 480
    static let buffer = 4 * 480
    static let periodNanoseconds = MediaTime.duration(ofFrames: 480, rate: 48_000)

    @Test func aDeviceWithAClockIsNeverHeldBack() {
        var pacer = DeviceRatePacer(sampleRate: 48_000, bufferFrames: Self.buffer, periodFrames: Self.period)
        let start: MediaTime = 1_000_000_000
        // Playback's first fill: a whole buffer at once.
        #expect(pacer.moved(Self.buffer, now: start) == nil)
        // Then a period each period, some a little early (a wake-up that came late catching up).
        for index in 1...1_000 {
            let jitter: MediaTime = index % 7 == 0 ? -2_000_000 : 0
            #expect(pacer.moved(Self.period, now: start + MediaTime(index) * Self.periodNanoseconds + jitter) == nil)
        }
    }

    @Test func aDeviceWithoutAClockIsHeldToItsRate() {
        var pacer = DeviceRatePacer(sampleRate: 48_000, bufferFrames: Self.buffer, periodFrames: Self.period)
        let start: MediaTime = 1_000_000_000
        var now = start
        var moved = 0
        var waits = 0
        // Every call returns at once, as ALSA's `null` does: the loop goes on only when told to.
        while moved < 48_000 {
            moved += Self.period
            if let due = pacer.moved(Self.period, now: now) {
                #expect(due > now)
                now = due
                waits += 1
            }
        }
        let allowance = Self.buffer + Self.period
        // A second of audio took a second, less what a clocked device may hold ahead of time.
        #expect(now - start == MediaTime.duration(ofFrames: Int64(48_000 - allowance), rate: 48_000))
        #expect(waits == (48_000 - allowance) / Self.period)
    }

    @Test func aRestartedStreamStartsCountingAgain() {
        var pacer = DeviceRatePacer(sampleRate: 48_000, bufferFrames: Self.buffer, periodFrames: Self.period)
        for _ in 0..<20 { _ = pacer.moved(Self.period, now: 0) }
        pacer.restart()
        #expect(pacer.moved(Self.buffer, now: 5_000_000_000) == nil)
    }
}
