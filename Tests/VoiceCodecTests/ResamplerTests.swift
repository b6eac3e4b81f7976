import Testing
import VoiceCodec
import VoiceCore
import VoiceSimulation

@Suite("Resampler")
struct ResamplerTests {
    /// Resamples `input` in 20 ms chunks, as a device loop would.
    static func resample(_ input: [Float], with resampler: inout Resampler) -> [Float] {
        let chunk = resampler.inputRate / 50
        var output: [Float] = []
        var buffer = [Float](repeating: 0, count: resampler.outputCapacity(forInputFrames: chunk))
        var start = 0
        while start < input.count {
            let end = min(start + chunk, input.count)
            let (consumed, produced) = input[start..<end].withUnsafeBufferPointer { source in
                buffer.withUnsafeMutableBufferPointer { resampler.process(source, into: $0) }
            }
            #expect(consumed == end - start)
            output.append(contentsOf: buffer[0..<produced])
            start += consumed
        }
        return output
    }

    /// Zero crossings per second, counted between the given samples.
    static func crossingsPerSecond(_ signal: ArraySlice<Float>, sampleRate: Int) -> Double {
        let crossings = zip(signal.dropFirst(), signal).filter { ($0 >= 0) != ($1 >= 0) }.count
        return Double(crossings) * Double(sampleRate) / Double(signal.count - 1)
    }

    @Test func toneSurvivesDownAndUpSampling() throws {
        let tone = TestSignal.sine(frequency: 1_000, amplitude: 0.5, frames: 2 * 48_000)
        var down = try Resampler(channels: 1, inputRate: 48_000, outputRate: 16_000)
        var up = try Resampler(channels: 1, inputRate: 16_000, outputRate: 48_000)
        let narrow = Self.resample(tone, with: &down)
        let restored = Self.resample(narrow, with: &up)

        // Output counts follow the rate ratio, short only by what is still in the filters.
        let downLatency = down.inputLatency()
        let upLatency = up.inputLatency()
        #expect(abs(narrow.count - tone.count / 3) <= downLatency / 3 + 1, "\(narrow.count) frames at 16 kHz")
        #expect(abs(restored.count - narrow.count * 3) <= upLatency * 3 + 3, "\(restored.count) frames at 48 kHz")

        // After the filters' latency the tone has its frequency and amplitude.
        let steady = restored[9_600..<(restored.count - 4_800)]
        let frequency = Self.crossingsPerSecond(steady, sampleRate: 48_000) / 2
        #expect(abs(frequency - 1_000) < 2, "frequency \(frequency) Hz")
        let rms = Signal.rms(steady)
        #expect(abs(rms - 0.5 / 2.squareRoot()) < 0.02, "rms \(rms)")
        let narrowFrequency = Self.crossingsPerSecond(narrow[3_200..<(narrow.count - 1_600)], sampleRate: 16_000) / 2
        #expect(abs(narrowFrequency - 1_000) < 2, "frequency at 16 kHz \(narrowFrequency) Hz")
    }

    @Test func invalidSettingsAreRejected() {
        expectCodecError(.invalidArgument, mentioning: ["500"]) {
            _ = try Resampler(channels: 1, inputRate: 500, outputRate: 48_000)
        }
        expectCodecError(.invalidArgument, mentioning: ["1000000"]) {
            _ = try Resampler(channels: 1, inputRate: 48_000, outputRate: 1_000_000)
        }
        expectCodecError(.invalidArgument, mentioning: ["channels"]) {
            _ = try Resampler(channels: 0, inputRate: 48_000, outputRate: 16_000)
        }
        expectCodecError(.invalidArgument, mentioning: ["quality"]) {
            _ = try Resampler(channels: 1, inputRate: 48_000, outputRate: 16_000, quality: 11)
        }
    }
}
