import Testing
import VoiceCore
import VoiceMedia

@testable import VoiceEngine

@Suite struct EngineEchoCancellationTests {
    /// An app that ticks the engine itself and plays the game's sound besides the engine's mix:
    /// the microphone picks the sound up 60 ms later at half its level. Returns the level the
    /// engine's input meter read from what it sent at the end, and the canceller's statistics.
    private func run(_ mode: EchoCancellationMode, seconds: Double = 6) throws -> (
        inputLevel: Float, statistics: CaptureEchoCanceller.Statistics?
    ) {
        let clock = ManualClock()
        let engine = try VoiceEngine(
            participant: "alice", configuration: EngineConfiguration(echoCancellation: mode), clock: clock)
        engine.withCore { $0.inputMeteringEnabled = true }
        let frame = engine.frameSamples
        let count = Int(seconds * 48_000) / frame * frame
        var state: UInt64 = 9
        let game = (0..<count).map { _ -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return 0.1 * (Float(state >> 40) / Float(1 << 23) - 1)
        }
        let delay = 2_880
        let microphone = (0..<count).map { $0 >= delay ? 0.5 * game[$0 - delay] : 0 }
        var output = [Float](repeating: 0, count: frame)
        let cancels = engine.echoCancellation != nil
        for tick in 0..<(count / frame) {
            let range = (tick * frame)..<((tick + 1) * frame)
            let taken = game.withUnsafeBufferPointer {
                engine.addPlaybackReference(UnsafeBufferPointer(rebasing: $0[range]))
            }
            #expect(taken == (cancels ? frame : 0))
            clock.advance(by: engine.configuration.frameDuration.nanoseconds)
            // The frame the microphone completed by now.
            let captured = range.lowerBound >= frame ? (range.lowerBound - frame)..<range.lowerBound : nil
            microphone.withUnsafeBufferPointer { microphone in
                output.withUnsafeMutableBufferPointer { output in
                    engine.tick(
                        at: clock.now, captured: captured.map { UnsafeBufferPointer(rebasing: microphone[$0]) },
                        output: output)
                }
            }
        }
        return (engine.withCore { $0.inputMeter.rmsDBFS }, engine.echoCancellation)
    }

    @Test func theGamesOwnSoundIsKeptOutOfWhatTheMicrophoneSends() throws {
        let cancelled = try run(.on)
        let heard = try run(.off)
        #expect(heard.statistics == nil)
        #expect(heard.inputLevel > -32, "the echo itself, about -31 dBFS: \(heard.inputLevel) dBFS")
        #expect(
            cancelled.inputLevel < heard.inputLevel - 25, "\(cancelled.inputLevel) against \(heard.inputLevel) dBFS")
        let statistics = try #require(cancelled.statistics)
        #expect(statistics.gameMixSamples == 6 * 48_000)
        #expect((statistics.echoReturnLossEnhancementDB ?? 0) >= 20)
    }

    /// On only with a real-time microphone and speaker: files and an app's own ticks have no room
    /// between them unless the app says so.
    @Test func automaticMeansARealMicrophoneAndSpeaker() throws {
        #expect(try run(.automatic, seconds: 0.1).statistics == nil)
        let microphone = Device(pacing: .realTime)
        let speaker = Device(pacing: .realTime)
        let file = Device(pacing: .onDemand)
        #expect(EchoCancellationMode.automatic.isOn(input: microphone, output: speaker))
        #expect(!EchoCancellationMode.automatic.isOn(input: microphone, output: file))
        #expect(!EchoCancellationMode.automatic.isOn(input: file, output: speaker))
        #expect(!EchoCancellationMode.automatic.isOn(input: nil, output: speaker))
        #expect(EchoCancellationMode.on.isOn(input: nil, output: nil))
        #expect(!EchoCancellationMode.off.isOn(input: microphone, output: speaker))
    }
}

/// A device that is only ever asked how it is paced.
private final class Device: AudioInput, AudioOutput, @unchecked Sendable {
    let name = "device"
    let format = AudioFormat.engineMono
    let pacing: DevicePacing
    let statistics = AudioDeviceStatistics()
    let isExhausted = false
    let availableToWrite = 0
    let periodCadence: PeriodCadence? = nil

    init(pacing: DevicePacing) { self.pacing = pacing }

    func start() {}
    func stop() {}
    func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int { 0 }
    func write(_ samples: UnsafeBufferPointer<Float>) -> Int { 0 }
}
