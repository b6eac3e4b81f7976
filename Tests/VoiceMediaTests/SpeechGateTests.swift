import Testing
import VoiceCore
import VoiceDevices
import VoiceMedia

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SpeechGateTests {
    /// Fixture audio from the repository's Fixtures/ folder, found relative to this file.
    private static func fixture(_ name: String, filePath: String = #filePath) throws -> [Float] {
        var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // this file, VoiceCoreTests, Tests
        return try WAVAudio(contentsOfFile: components.joined(separator: "/") + "/Fixtures/" + name).samples
    }

    /// Energy of each whole frame in dBFS: the oracle the gate is judged against.
    private static func frameLevels(_ samples: [Float], frameSamples: Int) -> [Float] {
        stride(from: 0, to: samples.count - frameSamples + 1, by: frameSamples).map { start in
            samples[start..<(start + frameSamples)].withUnsafeBufferPointer { LevelMeter.rmsDBFS(of: $0) }
        }
    }

    /// The gate's decision for each whole frame.
    private static func decisions(_ samples: [Float], frameSamples: Int, gate: inout SpeechGate) -> [Bool] {
        stride(from: 0, to: samples.count - frameSamples + 1, by: frameSamples).map { start in
            samples[start..<(start + frameSamples)].withUnsafeBufferPointer { gate.process($0) }
        }
    }

    private static func repeated(_ samples: [Float], count: Int) -> [Float] {
        (0..<count).map { samples[$0 % samples.count] }
    }

    @Test(arguments: [FrameDuration.ms20, .ms10, .ms5])
    func cleanSpeechIsSpeechAndPausesAreSilence(frameDuration: FrameDuration) throws {
        let speech = try Self.fixture("speech-male.wav")
        let frameSamples = frameDuration.engineFrames
        // A hangover shorter than the default, so that the fixture's pauses outlast it.
        var gate = try SpeechGate(SpeechGate.Configuration(hangoverSeconds: 0.2))
        let decided = Self.decisions(speech, frameSamples: frameSamples, gate: &gate)
        let levels = Self.frameLevels(speech, frameSamples: frameSamples)

        // Speech by the oracle: frames within 20 dB of the fixture's speech level (about -20 dBFS).
        let speechFrames = levels.indices.filter { levels[$0] > -40 }
        let detected = speechFrames.filter { decided[$0] }.count
        #expect(speechFrames.count > levels.count / 2)
        #expect(Double(detected) >= 0.99 * Double(speechFrames.count), "detected \(detected) of \(speechFrames.count)")

        // Pauses: frames whose energy, and that of every frame within the hangover before them,
        // is below the absolute threshold. The fixture has several pauses of 300 ms and more.
        let hangoverFrames = Int((gate.configuration.hangoverSeconds / (frameDuration.milliseconds / 1000)).rounded())
        let pauseFrames = levels.indices.filter { index in
            index > hangoverFrames && levels[(index - hangoverFrames - 1)...index].allSatisfy { $0 < -55 }
        }
        #expect(Double(pauseFrames.count) * frameDuration.milliseconds >= 500)
        #expect(pauseFrames.allSatisfy { !decided[$0] })
    }

    @Test func steadyPinkNoiseIsNotSpeechOnceAdapted() throws {
        let noise = Self.repeated(try Self.fixture("noise-pink.wav"), count: 10 * 48_000)
        let level = noise.withUnsafeBufferPointer { LevelMeter.rmsDBFS(of: $0) }
        #expect(level > -35 && level < -30)
        var gate = try SpeechGate()
        let decided = Self.decisions(noise, frameSamples: 960, gate: &gate)
        let afterAdapting = decided.dropFirst(125)  // 2.5 s: one floor window and a hangover
        #expect(
            afterAdapting.filter { $0 }.isEmpty, "\(afterAdapting.filter { $0 }.count) noise frames taken for speech")
        #expect(gate.noiseFloorDBFS > level - 6 && gate.noiseFloorDBFS < level)
    }

    @Test(arguments: [FrameDuration.ms20, .ms10, .ms5])
    func speechOverPinkNoiseIsStillDetected(frameDuration: FrameDuration) throws {
        let speech = try Self.fixture("speech-male.wav")
        let noise = Self.repeated(try Self.fixture("noise-pink.wav"), count: speech.count)
        let noiseLevel = noise.withUnsafeBufferPointer { LevelMeter.rmsDBFS(of: $0) }
        // Four seconds of noise alone first. Until the floor's window (2 s) has filled once, the
        // gate keeps its floor at or below the absolute threshold so that words at the very start
        // are not cut, and steady noise passes; after the window and the hangover it must not.
        let lead = 4 * 48_000
        let noisy = (0..<(lead + speech.count)).map { index in
            (index < lead ? 0 : speech[index - lead]) + noise[index % noise.count]
        }
        let frameSamples = frameDuration.engineFrames
        var gate = try SpeechGate()
        let decided = Self.decisions(noisy, frameSamples: frameSamples, gate: &gate)
        let leadFrames = lead / frameSamples
        let levels = Self.frameLevels(speech, frameSamples: frameSamples)

        let settled =
            Int((gate.configuration.floorWindowSeconds + gate.configuration.hangoverSeconds + 0.1) * 48_000)
            / frameSamples
        let leadFalseAlarms = decided[settled..<leadFrames].filter { $0 }.count
        #expect(leadFalseAlarms == 0)

        // Speech well above the noise must be found.
        let loudFrames = levels.indices.filter { levels[$0] > noiseLevel + 10 }
        let detected = loudFrames.filter { decided[leadFrames + $0] }.count
        #expect(Double(detected) >= 0.97 * Double(loudFrames.count), "detected \(detected) of \(loudFrames.count)")

        // And the pauses, now filled with noise, are still mostly silence.
        let hangoverFrames = Int((gate.configuration.hangoverSeconds / (frameDuration.milliseconds / 1000)).rounded())
        let pauseFrames = levels.indices.filter { index in
            index > hangoverFrames && levels[(index - hangoverFrames - 1)...index].allSatisfy { $0 < -55 }
        }
        let pauseSilence = pauseFrames.filter { !decided[leadFrames + $0] }.count
        #expect(Double(pauseSilence) >= 0.9 * Double(pauseFrames.count), "\(pauseSilence) of \(pauseFrames.count)")
    }

    @Test(arguments: [FrameDuration.ms20, .ms10, .ms5])
    func onsetIsImmediateAndHangoverLastsItsLength(frameDuration: FrameDuration) throws {
        let frameSamples = frameDuration.engineFrames
        var gate = try SpeechGate(SpeechGate.Configuration(hangoverSeconds: 0.1))
        let silence = [Float](repeating: 0, count: frameSamples)
        let tone = Array(TestSignalFrames.sine(amplitude: 0.3, frames: frameSamples))
        for _ in 0..<20 {
            let speech = silence.withUnsafeBufferPointer { gate.process($0) }
            #expect(!speech)
        }
        let onset = tone.withUnsafeBufferPointer { gate.process($0) }
        #expect(onset)
        #expect(gate.isActive)
        var held = 0
        for _ in 0..<100 { if silence.withUnsafeBufferPointer({ gate.process($0) }) { held += 1 } }
        #expect(held == Int((100 / frameDuration.milliseconds).rounded()))
        #expect(!gate.isSpeech)
    }

    @Test func rejectsSettingsOutOfRange() {
        #expect(throws: DSPSettingError.self) { try SpeechGate(SpeechGate.Configuration(marginDB: -3)) }
        #expect(throws: DSPSettingError.self) { try SpeechGate(SpeechGate.Configuration(hangoverSeconds: .nan)) }
        #expect(throws: DSPSettingError.self) { try SpeechGate(sampleRate: 0) }
    }
}

/// A sine chunk for building frames in these tests.
enum TestSignalFrames {
    static func sine(frequency: Double = 440, amplitude: Float, frames: Int, startingAt start: Int = 0) -> [Float] {
        (start..<(start + frames)).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / 48_000)) }
    }
}
