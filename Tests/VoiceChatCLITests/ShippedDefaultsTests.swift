import Foundation
import Testing
import VoiceCore
import VoiceEngine
import VoiceMedia
import VoiceSimulation

@testable import voicechat

/// What ships is what is measured: every command that encodes starts from `VoiceDefaults`, as do
/// the engine, the simulations and the benchmarks.
@Suite struct ShippedDefaultsTests {
    @Test func everyCommandThatRunsAnEngineShipsTheEnginesDefaults() throws {
        let sessions: [CallOptions] = [
            try CallCommand.parse(["127.0.0.1:7300"]).call,
            try ListenCommand.parse([]).call,
            try JoinCommand.parse(
                ["--relay", "127.0.0.1:7700", "--match", "m", "--name", "a", "--token", "t", "--channel", "all"]
            ).call,
        ]
        let engine = EngineConfiguration()
        for options in sessions {
            let configuration = options.engineConfiguration()
            #expect(configuration.frameDuration == VoiceDefaults.frameDuration)
            #expect(configuration.bitrate == VoiceDefaults.bitrate)
            #expect(configuration.complexity == VoiceDefaults.complexity)
            #expect(configuration.maximumDelayMilliseconds == engine.maximumDelayMilliseconds)
            #expect(configuration.frameDuration == engine.frameDuration)
            #expect(configuration.bitrate == engine.bitrate)
            #expect(configuration.complexity == engine.complexity)
        }
        let demo = try DemoCommand.parse([]).tuning
        #expect(demo.complexity == VoiceDefaults.complexity)
        #expect(
            EngineConfiguration(maximumDelayMilliseconds: demo.maximumDelayMilliseconds).maximumDelayMilliseconds
                == engine.maximumDelayMilliseconds)

        let loopback = try LoopbackCommand.parse(["--input", "in.wav", "--output", "out.wav"]).codec
        #expect(loopback.frameDuration == VoiceDefaults.frameDuration)
        #expect(loopback.bitrate.bitsPerSecond == VoiceDefaults.bitrate)
        #expect(loopback.complexity == VoiceDefaults.complexity)

        let simulate = try SimulateCommand.parse(["--input", "in.wav", "--output", "out.wav"])
        #expect(simulate.bitrate.bitsPerSecond == VoiceDefaults.bitrate)
        #expect(simulate.complexity == VoiceDefaults.complexity)
        #expect(simulate.frameMilliseconds == VoiceDefaults.frameDuration.milliseconds)
    }

    @Test func theComplexityAndTheDelayBudgetCanBeChosenOnEveryCommandThatEncodes() throws {
        let call = try CallCommand.parse(["127.0.0.1:7300", "--complexity", "5", "--max-delay-ms", "150"]).call
        #expect(call.engineConfiguration().complexity == 5)
        #expect(call.engineConfiguration().maximumDelayMilliseconds == 150)
        let tenMilliseconds = try ListenCommand.parse(["--frame-ms", "10"]).call.engineConfiguration()
        #expect(
            tenMilliseconds.maximumDelayMilliseconds == VoiceDefaults.maximumDelayMilliseconds(frameDuration: .ms10))
        #expect(try DemoCommand.parse(["--complexity", "3"]).tuning.complexity == 3)
        for bad in [
            ["--complexity", "11"], ["--max-delay-ms", "nan"], ["--max-delay-ms", "39"], ["--max-delay-ms", "inf"],
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try CallCommand.parse(["127.0.0.1:7300"] + bad) }
        }
    }

    /// Noise suppression, gain control and the gate's threshold reach the engine from every
    /// command that runs one; a threshold that is not −120…0 dBFS is refused at start-up.
    @Test func speechProcessingCanBeChosenOnEveryCommandThatRunsAnEngine() throws {
        #expect(
            try CallCommand.parse(["127.0.0.1:7300"]).call.engineConfiguration().speechProcessing == SpeechProcessing())
        let join = try JoinCommand.parse(
            [
                "--relay", "127.0.0.1:7700", "--match", "m", "--name", "a", "--token", "t", "--channel", "all",
                "--denoise", "--agc",
                "--vad-threshold-db", "-45",
            ])
        #expect(
            join.call.engineConfiguration().speechProcessing
                == SpeechProcessing(denoise: true, automaticGainControl: true, voiceActivityThresholdDBFS: -45))
        #expect(try ListenCommand.parse(["--denoise"]).call.engineConfiguration().speechProcessing.denoise)
        #expect(
            try DemoCommand.parse(["--vad-threshold-db", "-60"]).tuning.speechProcessing.voiceActivityThresholdDBFS
                == -60)
        for bad in [["--vad-threshold-db", "5"], ["--vad-threshold-db", "nan"], ["--vad-threshold-db", "-121"]] {
            #expect(throws: (any Error).self, "\(bad)") { try CallCommand.parse(["127.0.0.1:7300"] + bad) }
        }
    }

    /// Echo cancellation is automatic unless asked otherwise, on every command that runs an engine;
    /// anything but on, off or auto is refused at start-up.
    @Test func echoCancellationCanBeChosenOnEveryCommandThatRunsAnEngine() throws {
        #expect(try CallCommand.parse(["127.0.0.1:7300"]).call.engineConfiguration().echoCancellation == .automatic)
        #expect(try ListenCommand.parse(["--echo-cancel", "off"]).call.engineConfiguration().echoCancellation == .off)
        let join = try JoinCommand.parse(
            [
                "--relay", "127.0.0.1:7700", "--match", "m", "--name", "a", "--token", "t", "--channel", "all",
                "--echo-cancel", "on",
            ])
        #expect(join.call.engineConfiguration().echoCancellation == .on)
        #expect(try DemoCommand.parse(["--echo-cancel", "auto"]).tuning.echoCancellationMode == .automatic)
        for bad in [["--echo-cancel", "yes"], ["--echo-cancel", "automatic"], ["--echo-cancel"]] {
            #expect(throws: (any Error).self, "\(bad)") { try CallCommand.parse(["127.0.0.1:7300"] + bad) }
        }
    }

    @Test func theSimulationsAndTheMediaPipelinesStartFromTheShippedDefaults() {
        let simulation = CallSimulation.Configuration()
        #expect(simulation.frameDuration == VoiceDefaults.frameDuration)
        #expect(simulation.bitrate == VoiceDefaults.bitrate)
        #expect(simulation.complexity == VoiceDefaults.complexity)
        #expect(
            simulation.jitterBuffer.targetCeilingMilliseconds
                == DelayBudget.standard(frameDuration: VoiceDefaults.frameDuration).bufferingMilliseconds)
        let send = SendConfiguration(sender: 1, channel: 1)
        #expect(send.bitrate == VoiceDefaults.bitrate)
        #expect(send.complexity == VoiceDefaults.complexity)
        #expect(send.delayBudget == DelayBudget.standard(frameDuration: VoiceDefaults.frameDuration))
    }

    /// The benchmarks take every codec setting from `VoiceDefaults` or from an option whose
    /// default is; a literal would let them measure something the product does not ship.
    @Test func theBenchmarksWriteNoCodecSettingOfTheirOwn() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../bench/Sources")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        let literal = try Regex(#"(bitrate|complexity|maximumDelayMilliseconds|frameDuration)\s*[:=]\s*(\d|\.ms)"#)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(literal) && !line.contains("// setting named in the output") {
                Issue.record("bench/Sources/\(file):\(number + 1) sets a codec setting of its own: \(line)")
            }
        }
    }
}
