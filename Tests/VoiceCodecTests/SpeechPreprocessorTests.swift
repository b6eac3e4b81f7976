import Testing
import VoiceCodec
import VoiceCore

@Suite("Speech preprocessor")
struct SpeechPreprocessorTests {
    /// Runs `samples` through `preprocessor` in whole frames; the partial tail is dropped.
    static func process(_ samples: [Float], with preprocessor: inout SpeechPreprocessor) throws -> [Float] {
        let frameSize = preprocessor.configuration.frameSize
        var output = Array(samples.prefix(samples.count / frameSize * frameSize))
        for start in stride(from: 0, to: output.count, by: frameSize) {
            try output[start..<start + frameSize].withUnsafeMutableBufferPointer { (frame) throws(CodecError) in
                try preprocessor.process(frame)
            }
        }
        return output
    }

    @Test func denoiseLowersPinkNoise() throws {
        let noise = try Fixture.load("noise-pink.wav").samples
        var preprocessor = try SpeechPreprocessor(.init(denoise: true, noiseSuppressionDB: 25))
        let output = try Self.process(noise, with: &preprocessor)
        // Skip the first second, while speexdsp learns the noise.
        let range = 48_000..<output.count
        let reduction = Signal.decibels(Signal.energy(noise[range]) / Signal.energy(output[range]))
        // Measured 11 dB with 25 dB of suppression asked for.
        #expect(reduction > 6, "noise lowered by \(reduction) dB")

        var passThrough = try SpeechPreprocessor(.init(denoise: false))
        let untouched = try Self.process(noise, with: &passThrough)
        let unchanged = Signal.decibels(Signal.energy(noise[range]) / Signal.energy(untouched[range]))
        #expect(abs(unchanged) < 1, "without denoise the level changed by \(unchanged) dB")
    }

    @Test func automaticGainControlRaisesQuietSpeech() throws {
        let quiet = try Fixture.load("speech-female.wav").samples.map { $0 * 0.03 }
        var preprocessor = try SpeechPreprocessor(.init(denoise: false, automaticGainControl: true, agcTargetDBFS: -18))
        let output = try Self.process(quiet, with: &preprocessor)
        // Judge the second half, once the gain has settled.
        let range = output.count / 2..<output.count
        let gain = Signal.decibels(Signal.energy(output[range]) / Signal.energy(quiet[range]))
        // Measured 10 dB.
        #expect(gain > 6, "AGC raised the level by \(gain) dB")
    }

    @Test func invalidSettingsAndFramesAreRejected() throws {
        expectCodecError(.invalidArgument, mentioning: ["frameSize", "0"]) {
            _ = try SpeechPreprocessor(.init(frameSize: 0))
        }
        expectCodecError(.invalidArgument, mentioning: ["sampleRate", "96000"]) {
            _ = try SpeechPreprocessor(.init(sampleRate: 96_000))
        }
        expectCodecError(.invalidArgument, mentioning: ["noiseSuppressionDB", "-3"]) {
            _ = try SpeechPreprocessor(.init(noiseSuppressionDB: -3))
        }
        expectCodecError(.invalidArgument, mentioning: ["agcTargetDBFS"]) {
            _ = try SpeechPreprocessor(.init(agcTargetDBFS: 6))
        }
        expectCodecError(.invalidArgument, mentioning: ["agcMaxGainDB"]) {
            _ = try SpeechPreprocessor(.init(agcMaxGainDB: 100))
        }

        var preprocessor = try SpeechPreprocessor()
        var frame = [Float](repeating: 0, count: 480)
        expectCodecError(.invalidArgument, mentioning: ["480", "960"]) {
            try frame.withUnsafeMutableBufferPointer { (buffer) throws(CodecError) in try preprocessor.process(buffer) }
        }
        expectCodecError(.invalidArgument, mentioning: ["frameSize"]) {
            try preprocessor.reconfigure(.init(frameSize: 480))
        }
        try preprocessor.reconfigure(.init(automaticGainControl: true))
        let configuration = preprocessor.configuration
        #expect(configuration.automaticGainControl)
    }
}
