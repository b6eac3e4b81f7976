import Testing
import VoiceCore
import VoiceSimulation

@Suite struct LevelMeterTests {
    private func feed(_ meter: inout LevelMeter, _ samples: [Float], blockFrames: Int = 480) {
        var start = 0
        while start < samples.count {
            let end = min(start + blockFrames, samples.count)
            samples[start..<end].withUnsafeBufferPointer { meter.process($0) }
            start = end
        }
    }

    @Test func fullScaleSineReadsMinusThreeDBFSRMSAndZeroPeak() {
        var meter = LevelMeter()
        feed(&meter, TestSignal.sine(frequency: 1_000, amplitude: 1, frames: 48_000))
        #expect(abs(meter.rmsDBFS - (-3.01)) < 0.1)
        #expect(abs(meter.peakDBFS) < 0.05)
    }

    @Test func silenceReadsTheFloor() {
        var meter = LevelMeter()
        feed(&meter, [Float](repeating: 0, count: 4_800))
        #expect(meter.rmsDBFS == LevelMeter.floorDBFS)
        #expect(meter.peakDBFS == LevelMeter.floorDBFS)
    }

    @Test func attackIsFastAndReleaseIsSlow() {
        var meter = LevelMeter()
        let tone = TestSignal.sine(frequency: 440, amplitude: 0.5, frames: 48_000)
        // 30 ms of tone: with a 10 ms attack the RMS is within 1 dB of its final value.
        feed(&meter, Array(tone.prefix(1_440)))
        let steady: Float = -9.03  // 0.5 amplitude sine
        #expect(abs(meter.rmsDBFS - steady) < 1.0)
        // 30 ms of silence after it: with a 300 ms release the level has fallen by well under 3 dB...
        feed(&meter, Array(tone.prefix(48_000)))
        feed(&meter, [Float](repeating: 0, count: 1_440))
        #expect(meter.rmsDBFS > steady - 3)
        #expect(meter.rmsDBFS < steady)
        // ...but after 5 s of silence it reads far below speech levels.
        feed(&meter, [Float](repeating: 0, count: 240_000))
        #expect(meter.rmsDBFS < -60)
    }

    @Test func peakFallsAtTheConfiguredRate() {
        var meter = LevelMeter(peakFallDBPerSecond: 20)
        feed(&meter, [1.0] + [Float](repeating: 0, count: 479))
        #expect(abs(meter.peakDBFS) < 0.001)
        // One second of silence later the peak has fallen 20 dB.
        feed(&meter, [Float](repeating: 0, count: 48_000))
        #expect(abs(meter.peakDBFS - (-20)) < 0.5)
    }

    @Test func blockLevelWithoutBallistics() {
        let square: [Float] = (0..<480).map { $0 % 2 == 0 ? 0.5 : -0.5 }
        let level = square.withUnsafeBufferPointer { LevelMeter.rmsDBFS(of: $0) }
        #expect(abs(level - (-6.02)) < 0.01)
    }
}
