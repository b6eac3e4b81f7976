import Testing
import VoiceCore

@Suite("FrameDuration")
struct FrameDurationTests {
    @Test(
        "frames at 48 kHz",
        arguments: [
            (FrameDuration.ms2_5, 120), (.ms5, 240), (.ms10, 480), (.ms20, 960), (.ms40, 1_920), (.ms60, 2_880),
        ])
    func engineFrames(duration: FrameDuration, frames: Int) {
        #expect(duration.engineFrames == frames)
        #expect(AudioFormat.engineMono.frames(in: duration) == frames)
    }

    @Test("frames at the other Opus rates are exact")
    func otherRates() {
        #expect(FrameDuration.ms20.frames(atSampleRate: 8_000) == 160)
        #expect(FrameDuration.ms20.frames(atSampleRate: 12_000) == 240)
        #expect(FrameDuration.ms20.frames(atSampleRate: 16_000) == 320)
        #expect(FrameDuration.ms2_5.frames(atSampleRate: 8_000) == 20)
        #expect(FrameDuration.ms10.frames(atSampleRate: 24_000) == 240)
        #expect(AudioFormat(sampleRate: 16_000, channels: 2).frames(in: .ms5) == 80)
    }

    @Test("milliseconds parse to the supported lengths only")
    func parsing() {
        #expect(FrameDuration(milliseconds: 2.5) == .ms2_5)
        #expect(FrameDuration(milliseconds: 20) == .ms20)
        #expect(FrameDuration(milliseconds: 60) == .ms60)
        #expect(FrameDuration(milliseconds: 15) == nil)
        #expect(FrameDuration(milliseconds: 0) == nil)
        #expect(FrameDuration(milliseconds: -20) == nil)
        for duration in FrameDuration.allCases {
            #expect(FrameDuration(milliseconds: duration.milliseconds) == duration)
        }
    }

    @Test("descriptions read as durations")
    func descriptions() {
        #expect(FrameDuration.ms20.description == "20 ms")
        #expect(FrameDuration.ms2_5.description == "2.5 ms")
        #expect(FrameDuration.ms2_5.milliseconds == 2.5)
    }
}
