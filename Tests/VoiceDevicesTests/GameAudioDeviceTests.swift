import Foundation
import Testing
import VoiceCore

@testable import VoiceDevices

/// The game's own audio callback as the engine's microphone and speaker: blocks of any size, at
/// the game's rate, reblocked and resampled to the engine's 48 kHz frames and back.
@Suite struct GameAudioDeviceTests {
    /// A sine at `frequency` Hz, `frames` long at `rate`, starting at frame `start`.
    private static func sine(_ frequency: Double, rate: Int, start: Int, frames: Int, channels: Int) -> [Float] {
        (0..<(frames * channels)).map { (index: Int) -> Float in
            let time = Double(start + index / channels) / Double(rate)
            return Float(0.5 * sin(2 * Double.pi * frequency * time))
        }
    }

    @Test(arguments: [(48_000, 128), (48_000, 256), (44_100, 441), (48_000, 480), (48_000, 1_024), (44_100, 512)])
    func blocksOfAnySizeBecomeTheEnginesFramesAndBack(rate: Int, block: Int) throws {
        let device = try GameAudioDevice(sampleRate: rate, channels: 1)
        try device.input.start()
        try device.output.start()
        // A quarter of a second of the game's microphone (less than the ring holds), block by block.
        let blocks = rate / 4 / block
        var played = [Float](repeating: 0, count: block)
        for index in 0..<blocks {
            let captured = Self.sine(440, rate: rate, start: index * block, frames: block, channels: 1)
            captured.withUnsafeBufferPointer { captured in
                played.withUnsafeMutableBufferPointer { played in
                    device.process(captured: captured.baseAddress, output: played.baseAddress, frames: block)
                }
            }
        }
        var engineSide = [Float](repeating: 0, count: 96_000)
        let read = engineSide.withUnsafeMutableBufferPointer { device.input.read(into: $0) }
        // All of it arrives at 48 kHz (the resampler holds back its filter's few frames).
        let expected = blocks * block * engineSampleRate / rate
        #expect(abs(read - expected) <= 64, "read \(read) of \(expected)")
        let level = engineSide.withUnsafeBufferPointer {
            LevelMeter.rmsDBFS(of: UnsafeBufferPointer(rebasing: $0[1_000..<(read - 100)]))
        }
        #expect(abs(level - -9.03) < 0.5, "a 0.5 sine is -9 dBFS, not \(level)")

        // The engine's frames come back at the game's rate, block by block.
        let frames = Self.sine(1_000, rate: engineSampleRate, start: 0, frames: 9_600, channels: 1)
        #expect(frames.withUnsafeBufferPointer { device.output.write($0) } == 9_600)
        var heard: [Float] = []
        var block = [Float](repeating: 0, count: block)
        while heard.count + block.count <= 9_600 * rate / engineSampleRate - 100 {
            block.withUnsafeMutableBufferPointer {
                device.process(captured: nil, output: $0.baseAddress, frames: $0.count)
            }
            heard += block
        }
        let heardLevel = LevelMeter.rmsDBFS(
            of: heard.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[200...]) })
        #expect(abs(heardLevel - -9.03) < 0.5, "heard at \(heardLevel) dBFS")
        #expect(device.output.statistics.ringStarvedFrames == 0)
    }

    @Test func beforeTheEngineStartsTheGameHearsSilenceAndNothingIsQueued() throws {
        let device = try GameAudioDevice(sampleRate: 48_000, channels: 2)
        let captured = [Float](repeating: 0.5, count: 512)
        var played = [Float](repeating: 1, count: 512)
        captured.withUnsafeBufferPointer { captured in
            played.withUnsafeMutableBufferPointer { played in
                device.process(captured: captured.baseAddress, output: played.baseAddress, frames: 256)
            }
        }
        #expect(played.allSatisfy { $0 == 0 })
        var engineSide = [Float](repeating: 0, count: 1_024)
        #expect(engineSide.withUnsafeMutableBufferPointer { device.input.read(into: $0) } == 0)
    }

    @Test func aStereoMicrophoneIsMixedDownAndTheSpeakerRunsDryIntoCountedSilence() throws {
        let device = try GameAudioDevice(sampleRate: 48_000, channels: 2)
        try device.input.start()
        try device.output.start()
        let captured = (0..<960).map { $0 % 2 == 0 ? Float(0.25) : Float(0.75) }
        captured.withUnsafeBufferPointer { device.process(captured: $0.baseAddress, output: nil, frames: 480) }
        var engineSide = [Float](repeating: 0, count: 480)
        #expect(engineSide.withUnsafeMutableBufferPointer { device.input.read(into: $0) } == 480)
        #expect(engineSide.allSatisfy { $0 == 0.5 })
        // Half a block written: the other half is silence, counted once the engine has written.
        let frame = [Float](repeating: 0.25, count: 256)
        #expect(frame.withUnsafeBufferPointer { device.output.write($0) } == 128)
        var played = [Float](repeating: 1, count: 512)
        played.withUnsafeMutableBufferPointer { device.process(captured: nil, output: $0.baseAddress, frames: 256) }
        #expect(played[0..<256].allSatisfy { $0 == 0.25 })
        #expect(played[256...].allSatisfy { $0 == 0 })
        #expect(device.output.statistics.ringStarvedFrames == 128)
    }

    @Test func settingsAGameCannotHaveAreRefusedByName() {
        #expect(throws: AudioDeviceError.self) { try GameAudioDevice(sampleRate: 0, channels: 1) }
        #expect(throws: AudioDeviceError.self) { try GameAudioDevice(sampleRate: 1_000_000, channels: 1) }
        #expect(throws: AudioDeviceError.self) { try GameAudioDevice(sampleRate: 48_000, channels: 3) }
        #expect(throws: AudioDeviceError.self) { try GameAudioDevice(sampleRate: 48_000, channels: 1, blockFrames: -1) }
        #expect(throws: AudioDeviceError.self) {
            try GameAudioDevice(sampleRate: 48_000, channels: 1, blockFrames: 1 << 20)
        }
    }
}
