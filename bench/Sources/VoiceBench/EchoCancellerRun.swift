import VoiceCore
import VoiceMedia

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the engine's capture-path echo canceller over a simulated call, frame by frame, as the
/// engine thread does: each tick the frame the microphone completed is cancelled (told what still
/// waits in the speaker's queue) and then the frame mixed for the speaker is played into the
/// reference; the game's own mix is handed in from "its" thread in small blocks.
struct EchoCancellerRun {
    /// What the engine mixes for the speaker, and what the game plays besides, both at 48 kHz.
    var engineMix: [Float]
    var gameMix: [Float]?
    /// The near end's own voice and the microphone's noise, without echo.
    var near: [Float]
    var path: SimulatedEchoPath
    /// Frames queued ahead of the speaker, which the engine knows and compensates.
    var speakerQueueFrames = 2
    var frameSamples = 960
    /// nil runs without a canceller: what the far end hears today.
    var configuration: CaptureEchoCanceller.Configuration?

    struct Result {
        /// What the microphone delivered (near + echo) and what the canceller sent on.
        var captured: [Float]
        var sent: [Float]
        /// The echo alone at the microphone.
        var echo: [Float]
        var allocations: Int
        var nanosecondsPerFrame: Double
        var statistics: CaptureEchoCanceller.Statistics?
    }

    /// What reaches the speaker: everything it was given, `speakerQueueFrames` later.
    var played: [Float] {
        let count = near.count / frameSamples * frameSamples
        var played = [Float](repeating: 0, count: count)
        let queue = speakerQueueFrames * frameSamples
        for index in queue..<count {
            played[index] = engineMix[index - queue] + (gameMix.map { $0[index - queue] } ?? 0)
        }
        return played
    }

    func run() throws -> Result {
        let count = near.count / frameSamples * frameSamples
        let queue = speakerQueueFrames * frameSamples
        let echo = Array(path.echo(of: played).prefix(count))
        let captured = (0..<count).map { near[$0] + echo[$0] }
        var sent = [Float](repeating: 0, count: count)
        let canceller = try configuration.map {
            try CaptureEchoCanceller(frameSamples: frameSamples, configuration: $0)
        }
        let gameBlock = 240
        var gameHanded = 0
        let started = monotonicNanoseconds()
        let counting = AllocationCounter.isActive()
        if counting { AllocationCounter.start(threads: [pthread_self()]) }
        captured.withUnsafeBufferPointer { captured in
            engineMix.withUnsafeBufferPointer { mix in
                sent.withUnsafeMutableBufferPointer { sent in
                    for frame in 0..<(count / frameSamples) {
                        let range = (frame * frameSamples)..<((frame + 1) * frameSamples)
                        // A frame is captured whole before it is handed on: at this tick, the one before.
                        if frame > 0 {
                            let capturedRange = (range.lowerBound - frameSamples)..<range.lowerBound
                            let input = UnsafeBufferPointer(rebasing: captured[capturedRange])
                            let output = canceller?.cancel(input, queuedSamples: queue) ?? input
                            for (offset, sample) in output.enumerated() {
                                sent[capturedRange.lowerBound + offset] = sample
                            }
                        }
                        if let gameMix, let canceller {
                            // The game's audio thread hands its mix in as it plays it.
                            while gameHanded < range.upperBound {
                                gameMix.withUnsafeBufferPointer { game in
                                    let end = min(gameHanded + gameBlock, range.upperBound)
                                    canceller.reference.addGameMix(
                                        UnsafeBufferPointer(rebasing: game[gameHanded..<end]))
                                    gameHanded = end
                                }
                            }
                        }
                        canceller?.played(UnsafeBufferPointer(rebasing: mix[range]))
                    }
                }
            }
        }
        let allocations = counting ? AllocationCounter.stop() : -1
        let elapsed = Double(monotonicNanoseconds() - started)
        return Result(
            captured: captured, sent: sent, echo: echo, allocations: allocations,
            nanosecondsPerFrame: elapsed / Double(count / frameSamples), statistics: canceller?.statistics)
    }
}
