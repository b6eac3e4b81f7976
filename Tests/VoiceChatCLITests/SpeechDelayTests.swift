import Testing
import VoiceDevices

@testable import voicechat

/// The demo's delay estimate without the scorer.
@Suite struct SpeechDelayTests {
    /// A short run hears only the start of the clip it was sent; the delay is found from that start
    /// (a 3 s demo said "no speech heard" because the whole clip was compared).
    @Test func aShortRecordingOfALongClipStillGivesItsDelay() throws {
        let said = try WAVFileInput.recording(path: CommandRunner.fixture("speech-male.wav"))
        let delaySamples = 40 * 48
        let heard = [Float](repeating: 0, count: delaySamples) + said.prefix(3 * 48_000 - delaySamples)
        #expect(SpeechDelay.estimate(said: said, heard: heard) == 40)
        #expect(SpeechDelay.estimate(said: said, heard: [Float](heard.prefix(400 * 48))) == nil)
    }
}
