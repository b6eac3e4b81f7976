import Foundation
import Testing
import VoiceCodec
import VoiceCore
import VoiceSimulation
import VoiceWire

@testable import VoiceMedia

@Suite struct EncoderRestTests {
    /// A microphone in a quiet room (-70 dBFS of noise) for 10 s after the path's warm-up, then
    /// speech. The encoder codes only the keep-alives and the 40 ms before each; the speech after
    /// the silence decodes as faithfully as the same packets from an encoder that coded every frame.
    @Test func aLongSilenceIsNotCodedAndTheSpeechAfterItSoundsTheSame() throws {
        let configuration = SendConfiguration(sender: 1, channel: 0)
        var driver = try SendDriver(configuration)
        let frame = driver.frameSamples
        let silenceFrames = 500
        let speechFrames = 150
        var random = SeededRandom(seed: 11)
        let input =
            (0..<(silenceFrames * frame)).map { _ in Float(random.nextUnit() * 2 - 1) * 3e-4 }
            + Array(try SendSignals.speech()[0..<(speechFrames * frame)])
        let packets = try driver.send(frames: silenceFrames + speechFrames) { input[$0] }
        let statistics = driver.pipeline.statistics

        let keepAlives = packets.filter { $0.frame >= VoiceSendPipeline.warmUpFrames && $0.frame < silenceFrames }
        let coded = statistics.framesCaptured - statistics.framesRested
        print(
            "10 s of a quiet room: \(statistics.framesRested) of \(silenceFrames) frames rested, "
                + "\(keepAlives.count) keep-alives")
        // Coded: the warm-up, the 200 ms before the rest starts, 3 frames per keep-alive, the speech.
        #expect(statistics.framesRested >= silenceFrames - VoiceSendPipeline.warmUpFrames - 10 - 3 * keepAlives.count)
        #expect(coded <= VoiceSendPipeline.warmUpFrames + 10 + 3 * keepAlives.count + speechFrames)

        // The same frames from an encoder that codes every one, decoded as the listener would.
        var encoder = try OpusEncoder(configuration.primaryEncoder)
        var continuous: [[UInt8]] = []
        var payload = [UInt8](repeating: 0, count: 1_500)
        for index in 0..<(silenceFrames + speechFrames) {
            let length = try input[(index * frame)..<((index + 1) * frame)].withUnsafeBufferPointer { pcm in
                try payload.withUnsafeMutableBufferPointer { try encoder.encode(pcm, into: $0) }
            }
            continuous.append(Array(payload[..<length]))
        }
        var restedDecoder = try OpusDecoder(sampleRate: engineSampleRate, channels: 1)
        var continuousDecoder = try OpusDecoder(sampleRate: engineSampleRate, channels: 1)
        var restedSpeech: [Float] = []
        var continuousSpeech: [Float] = []
        for packet in packets {
            let rested = try SendPipelineTests.decode(packet.primary, with: &restedDecoder)
            let reference = try SendPipelineTests.decode(continuous[packet.frame], with: &continuousDecoder)
            guard packet.frame >= silenceFrames else { continue }
            restedSpeech += rested
            continuousSpeech += reference
        }
        // Against the microphone's speech at the codec's delay: the same fidelity at the onset,
        // where the rested encoder starts from what it caught up on, and after it.
        let original = Array(input[(silenceFrames * frame)...])
        let whole = 0..<(100 * frame)
        let lag = (0..<frame).max {
            Self.snr(of: continuousSpeech, against: original, lag: $0, range: whole)
                < Self.snr(of: continuousSpeech, against: original, lag: $1, range: whole)
        }!
        for range in [0..<(5 * frame), (5 * frame)..<(20 * frame), (20 * frame)..<(140 * frame)] {
            let rested = Self.snr(of: restedSpeech, against: original, lag: lag, range: range)
            let coded = Self.snr(of: continuousSpeech, against: original, lag: lag, range: range)
            print(
                "speech frames \(range.lowerBound / frame)..<\(range.upperBound / frame): \(rested) dB after a rest, "
                    + "\(coded) dB coded throughout")
            #expect(rested >= coded - 0.5)
            #expect(coded > 8)
        }
    }

    /// Signal to error of `decoded`, `lag` samples late, against `original` over `range`, dB.
    static func snr(of decoded: [Float], against original: [Float], lag: Int, range: Range<Int>) -> Double {
        var signal = 0.0
        var noise = 0.0
        for index in range where index + lag < decoded.count && index < original.count {
            signal += Double(original[index]) * Double(original[index])
            let error = Double(decoded[index + lag] - original[index])
            noise += error * error
        }
        return 10 * log10(signal / max(noise, 1e-20))
    }
}
