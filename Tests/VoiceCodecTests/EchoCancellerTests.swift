import Testing
import VoiceCodec
import VoiceCore
import VoiceTesting

@Suite("Echo canceller")
struct EchoCancellerTests {
    static let frame = 960

    /// The far end's speech, and what a microphone hears of it: 10 ms later, 6 dB down, plus a
    /// little noise.
    static func echoScene() throws -> (played: [Float], captured: [Float]) {
        let played = try Fixture.load("speech-female.wav").samples
        let delay = 480
        var random = SeededRandom(seed: 42)
        let captured = (0..<played.count).map { index in
            (index >= delay ? 0.5 * played[index - delay] : 0) + Float.random(in: -0.001...0.001, using: &random)
        }
        let frames = played.count / frame * frame
        return (Array(played.prefix(frames)), Array(captured.prefix(frames)))
    }

    /// After the filter has converged, what is left of the echo is far below the echo itself.
    @Test func cancelsAConvergedEcho() throws {
        let (played, captured) = try Self.echoScene()
        var canceller = try EchoCanceller(frameSize: Self.frame, tailMilliseconds: 100)
        var residual = [Float](repeating: 0, count: captured.count)
        for start in stride(from: 0, to: captured.count, by: Self.frame) {
            try captured[start..<start + Self.frame].withUnsafeBufferPointer { (near) throws(CodecError) in
                try played[start..<start + Self.frame].withUnsafeBufferPointer { (far) throws(CodecError) in
                    try residual[start..<start + Self.frame].withUnsafeMutableBufferPointer {
                        (out) throws(CodecError) in
                        try canceller.cancel(captured: near, played: far, into: out)
                    }
                }
            }
        }
        // Echo return loss enhancement over the last 5 s.
        let range = (captured.count - 5 * 48_000)..<captured.count
        let erle = Signal.decibels(Signal.energy(captured[range]) / Signal.energy(residual[range]))
        // Measured 33 dB.
        #expect(erle > 15, "ERLE \(erle) dB")
    }

    /// The preprocessor's residual echo suppression takes the rest further down than the same
    /// preprocessor (denoise only) does without knowing about the echo.
    @Test func residualEchoSuppressionHelps() throws {
        let (played, captured) = try Self.echoScene()
        var canceller = try EchoCanceller(frameSize: Self.frame, tailMilliseconds: 100)
        var preprocessor = try SpeechPreprocessor(.init(denoise: true))
        var denoiseOnly = try SpeechPreprocessor(.init(denoise: true))
        var plain = [Float](repeating: 0, count: captured.count)
        var suppressed = [Float](repeating: 0, count: captured.count)
        for start in stride(from: 0, to: captured.count, by: Self.frame) {
            let range = start..<start + Self.frame
            try captured[range].withUnsafeBufferPointer { (near) throws(CodecError) in
                try played[range].withUnsafeBufferPointer { (far) throws(CodecError) in
                    try plain[range].withUnsafeMutableBufferPointer { (out) throws(CodecError) in
                        try canceller.cancel(captured: near, played: far, into: out)
                    }
                }
            }
            suppressed.replaceSubrange(range, with: plain[range])
            try suppressed[range].withUnsafeMutableBufferPointer { (out) throws(CodecError) in
                try preprocessor.process(out, suppressingResidualEchoOf: canceller)
            }
            try plain[range].withUnsafeMutableBufferPointer { (out) throws(CodecError) in
                try denoiseOnly.process(out)
            }
        }
        let range = (captured.count - 5 * 48_000)..<captured.count
        let extra = Signal.decibels(Signal.energy(plain[range]) / Signal.energy(suppressed[range]))
        // Measured 19 dB.
        #expect(extra > 6, "residual echo suppression removed only \(extra) dB more")
    }

    @Test func invalidSettingsAndFramesAreRejected() throws {
        expectCodecError(.invalidArgument, mentioning: ["tailMilliseconds", "0"]) {
            _ = try EchoCanceller(tailMilliseconds: 0)
        }
        expectCodecError(.invalidArgument, mentioning: ["frameSize"]) { _ = try EchoCanceller(frameSize: 0) }
        expectCodecError(.invalidArgument, mentioning: ["sampleRate"]) { _ = try EchoCanceller(sampleRate: 4_000) }
        var canceller = try EchoCanceller()
        let short = [Float](repeating: 0, count: 100)
        var output = [Float](repeating: 0, count: 960)
        expectCodecError(.invalidArgument, mentioning: ["960"]) {
            try short.withUnsafeBufferPointer { (near) throws(CodecError) in
                try output.withUnsafeMutableBufferPointer { (out) throws(CodecError) in
                    try canceller.cancel(captured: near, played: near, into: out)
                }
            }
        }
        var preprocessor = try SpeechPreprocessor(.init(frameSize: 480))
        var frame = [Float](repeating: 0, count: 480)
        expectCodecError(.invalidArgument, mentioning: ["frame size"]) {
            try frame.withUnsafeMutableBufferPointer { (out) throws(CodecError) in
                try preprocessor.process(out, suppressingResidualEchoOf: canceller)
            }
        }
        var withoutDenoise = try SpeechPreprocessor(.init(denoise: false))
        var fullFrame = [Float](repeating: 0, count: 960)
        expectCodecError(.invalidArgument, mentioning: ["denoise"]) {
            try fullFrame.withUnsafeMutableBufferPointer { (out) throws(CodecError) in
                try withoutDenoise.process(out, suppressingResidualEchoOf: canceller)
            }
        }
        canceller.reset()
    }
}
