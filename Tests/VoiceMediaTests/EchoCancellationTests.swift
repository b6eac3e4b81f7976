import Testing
import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceSimulation

#if canImport(Glibc)
    import Glibc
#endif

private func meanPower(_ samples: ArraySlice<Float>) -> Double {
    samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))
}

private func decibels(_ ratio: Double) -> Double { 10 * log10(ratio) }

@Suite struct PlaybackReferenceTests {
    @Test func samplesAreReadByTheirNumberAndSilenceOutsideWhatIsKept() {
        let reference = PlaybackReference(minimumSamples: 8)
        let played: [Float] = (1...12).map(Float.init)
        played.withUnsafeBufferPointer { reference.played($0) }
        #expect(reference.written == 12)
        var out = [Float](repeating: -1, count: 4)
        out.withUnsafeMutableBufferPointer { reference.copy(endingAt: 12, into: $0) }
        #expect(out == [9, 10, 11, 12])
        // 12 played, 8 kept: numbers 0…3 are gone, 12 and on not played yet.
        out.withUnsafeMutableBufferPointer { reference.copy(endingAt: 6, into: $0) }
        #expect(out == [0, 0, 5, 6])
        out.withUnsafeMutableBufferPointer { reference.copy(endingAt: 14, into: $0) }
        #expect(out == [11, 12, 0, 0])
    }

    @Test func theGamesMixIsAddedSampleBySampleAndItsSurplusDropped() {
        let reference = PlaybackReference(minimumSamples: 64, gameBacklogSamples: 4)
        let stereo: [Float] = [1, 3, 2, 4, 3, 5]  // mono 2, 3, 4
        #expect(stereo.withUnsafeBufferPointer { reference.addGameMix($0, channels: 2) } == 3)
        let voice: [Float] = [10, 10, 10, 10]
        voice.withUnsafeBufferPointer { reference.played($0) }
        var out = [Float](repeating: -1, count: 4)
        out.withUnsafeMutableBufferPointer { reference.copy(endingAt: 4, into: $0) }
        #expect(out == [12, 13, 14, 10])
        #expect(reference.gameSamplesMixed == 3)
        // Ten handed in: eight fit the queue, four may wait to be played. The oldest four are
        // dropped, so the game's part stays as current as its sound.
        let game: [Float] = (1...10).map(Float.init)
        #expect(game.withUnsafeBufferPointer { reference.addGameMix($0) } == 8)
        voice.withUnsafeBufferPointer { reference.played($0) }
        out.withUnsafeMutableBufferPointer { reference.copy(endingAt: 8, into: $0) }
        #expect(out == [15, 16, 17, 18])
        #expect(reference.gameSamplesDropped == 4)
    }
}

@Suite struct CaptureEchoCancellerTests {
    /// Runs the canceller as the engine thread does: each tick the frame the microphone completed
    /// is cancelled, then the next frame is played. The echo is the played noise, 40 ms and
    /// `queueFrames` later (the queue the engine reports), at half its level.
    private func run(
        seconds: Double, queueFrames: Int, reportedQueueFrames: Int, near: (Int) -> Float = { _ in 0 },
        farAmplitude: Float = 0.1, echoGain: Float = 0.5, microphoneFrom: Int = 0,
        configuration: CaptureEchoCanceller.Configuration = .init()
    ) throws -> (echo: [Float], captured: [Float], sent: [Float], statistics: CaptureEchoCanceller.Statistics) {
        let frame = 960
        let canceller = try CaptureEchoCanceller(frameSamples: frame, configuration: configuration)
        let count = Int(seconds * 48_000) / frame * frame
        var random = SeededRandom(seed: 5)
        let far = (0..<count).map { _ in Float.random(in: -farAmplitude...farAmplitude, using: &random) }
        let delay = 1_920 + queueFrames * frame
        let echo = (0..<count).map { $0 >= delay ? echoGain * far[$0 - delay] : 0 }
        // Before `microphoneFrom`, the microphone gives digital silence (muted, or a silent file).
        let captured = (0..<count).map { $0 < microphoneFrom ? 0 : echo[$0] + near($0) }
        var sent = [Float](repeating: 0, count: count)
        for tick in 0..<(count / frame) {
            let range = (tick * frame)..<((tick + 1) * frame)
            if tick > 0 {
                let capturedRange = (range.lowerBound - frame)..<range.lowerBound
                captured.withUnsafeBufferPointer { captured in
                    let output = canceller.cancel(
                        UnsafeBufferPointer(rebasing: captured[capturedRange]),
                        queuedSamples: reportedQueueFrames * frame)
                    for (offset, sample) in output.enumerated() { sent[capturedRange.lowerBound + offset] = sample }
                }
            }
            far.withUnsafeBufferPointer { canceller.played(UnsafeBufferPointer(rebasing: $0[range])) }
        }
        return (echo, captured, sent, canceller.statistics)
    }

    @Test func theEchoOfWhatWasPlayedIsRemovedAndMeasured() throws {
        let result = try run(seconds: 6, queueFrames: 3, reportedQueueFrames: 3)
        let last = (result.echo.count - 96_000)..<(result.echo.count - 960)
        let enhancement = decibels(meanPower(result.echo[last]) / meanPower(result.sent[last]))
        #expect(enhancement >= 25, "ERLE over the last 2 s: \(enhancement) dB")
        let measured = try #require(result.statistics.echoReturnLossEnhancementDB)
        #expect(measured >= 20, "the canceller's own estimate: \(measured) dB")
        #expect(result.statistics.framesCancelled == 299)
    }

    /// What still waits to be played is taken off the reference's end: a queue longer than the
    /// filter's tail, reported, costs nothing; the same queue unreported, with no delay looked
    /// for, puts the echo out of the filter's reach.
    @Test func theSpeakersQueueIsAllowedFor() throws {
        let queueFrames = 15  // 300 ms, longer than the 250 ms tail
        var notLooking = CaptureEchoCanceller.Configuration()
        notLooking.maximumEchoDelayMilliseconds = 0
        let reported = try run(
            seconds: 6, queueFrames: queueFrames, reportedQueueFrames: queueFrames, configuration: notLooking)
        let unreported = try run(
            seconds: 6, queueFrames: queueFrames, reportedQueueFrames: 0, configuration: notLooking)
        let last = (reported.echo.count - 96_000)..<(reported.echo.count - 960)
        let withQueue = decibels(meanPower(reported.echo[last]) / meanPower(reported.sent[last]))
        let withoutQueue = decibels(meanPower(unreported.echo[last]) / meanPower(unreported.sent[last]))
        #expect(withQueue >= 25, "\(withQueue) dB")
        #expect(withoutQueue < 10, "\(withoutQueue) dB")
    }

    /// An echo that comes later than the engine knows, past what the tail can hold (a sound
    /// server's buffers), is found, and the reference is held back so that the tail covers it.
    @Test func anEchoLaterThanTheTailIsFoundAndTheReferenceHeldBack() throws {
        let result = try run(seconds: 6, queueFrames: 15, reportedQueueFrames: 0)
        let last = (result.echo.count - 96_000)..<(result.echo.count - 960)
        let enhancement = decibels(meanPower(result.echo[last]) / meanPower(result.sent[last]))
        #expect(enhancement >= 25, "ERLE over the last 2 s: \(enhancement) dB")
        // 40 ms of path and 300 ms of queue nobody reported.
        #expect(result.statistics.echoDelayMilliseconds == 340)
        #expect(result.statistics.referenceHeldBackMilliseconds == 320)
    }

    /// An echo the tail holds as it is leaves the reference where it was: holding it back would
    /// make the filter start over for nothing.
    @Test func anEchoTheTailHoldsIsFoundButNotMoved() throws {
        let result = try run(seconds: 3, queueFrames: 3, reportedQueueFrames: 3)
        #expect(result.statistics.echoDelayMilliseconds == 40)
        #expect(result.statistics.referenceHeldBackMilliseconds == 0)
    }

    /// With nothing played for a second, the near end's voice goes through untouched: sample for
    /// sample, on time (before, it came out through the suppressor, a millisecond late), and neither
    /// stage runs.
    @Test func theNearEndAloneGoesThroughUntouched() throws {
        var random = SeededRandom(seed: 8)
        let voice = (0..<(3 * 48_000)).map { _ in Float.random(in: -0.1...0.1, using: &random) }
        let result = try run(seconds: 3, queueFrames: 2, reportedQueueFrames: 2, near: { voice[$0] }, farAmplitude: 0)
        let idle = CaptureEchoCanceller.idleFramesBeforeStandingAside
        let span = ((idle + 2) * 960)..<(result.sent.count - 960)
        #expect(Array(result.sent[span]) == Array(result.captured[span]))
        #expect(result.statistics.framesPassedThrough >= result.statistics.framesCancelled - idle - 1)
        #expect(result.statistics.echoReturnLossEnhancementDB == nil)
        #expect(result.statistics.framesWithEcho == 0)
    }

    /// A microphone that gives digital silence while the far end talks (muted, a silent file) has
    /// nothing to cancel: silence goes out, untouched. Once it hears the echo, the filter, whose
    /// reference kept in step meanwhile, takes it off as well as one that ran all along.
    @Test func aSilentMicrophoneIsLeftAloneAndTheEchoIsTakenOffOnceItHears() throws {
        let from = 3 * 48_000
        let result = try run(seconds: 8, queueFrames: 3, reportedQueueFrames: 3, microphoneFrom: from)
        #expect(result.sent[0..<from].allSatisfy { $0 == 0 })
        #expect(
            result.statistics.framesPassedThrough >= from / 960 - CaptureEchoCanceller.idleFramesBeforeStandingAside - 1
        )
        let last = (result.echo.count - 96_000)..<(result.echo.count - 960)
        let enhancement = decibels(meanPower(result.echo[last]) / meanPower(result.sent[last]))
        #expect(enhancement >= 25, "ERLE over the last 2 s: \(enhancement) dB")
    }

    /// Once the path is learned, a near end talking over the far end keeps its voice while the
    /// echo is still taken off: the filter holds still and the suppressor lets through what the
    /// filter cannot explain.
    @Test func theNearEndTalkingOverTheFarEndKeepsItsVoice() throws {
        var random = SeededRandom(seed: 9)
        let start = 3 * 48_000
        let voice = (0..<(6 * 48_000)).map { $0 < start ? 0 : Float.random(in: -0.1...0.1, using: &random) }
        let result = try run(seconds: 6, queueFrames: 3, reportedQueueFrames: 3, near: { voice[$0] })
        let span = (start + 48_000)..<(result.sent.count - 960)
        let late = 48
        let echoLeft = span.map { result.sent[$0] - voice[$0 - late] }
        let error = decibels(meanPower(echoLeft[...]) / meanPower(voice[span]))
        #expect(error < -15, "what was sent differs from the near end's voice by \(error) dB")
        let kept = decibels(meanPower(result.sent[span]) / meanPower(voice[span]))
        #expect(abs(kept) < 2, "the near end's voice went out \(kept) dB changed")
    }

    /// With headphones the microphone never hears what is played: once a second of playing
    /// brought no echo, the near end talking over the far end goes out as it came, sample for
    /// sample, where the suppressor, uncertain of a path it cannot learn, would take it off.
    @Test func withNoEchoPathTheNearEndTalkingOverTheFarEndGoesOutAsItCame() throws {
        var random = SeededRandom(seed: 10)
        let voice = (0..<(4 * 48_000)).map { _ in Float.random(in: -0.1...0.1, using: &random) }
        let result = try run(seconds: 4, queueFrames: 3, reportedQueueFrames: 3, near: { voice[$0] }, echoGain: 0)
        let echoless = CaptureEchoCanceller.echolessFramesBeforeStandingAside
        // The reference is heard from the fifth frame on (the echo's 40 ms and the queue's three).
        let span = ((echoless + 8) * 960)..<(result.sent.count - 960)
        let altered = span.filter { result.sent[$0] != result.captured[$0] }.count
        #expect(altered == 0, "\(altered) of \(span.count) samples altered")
        #expect(result.statistics.framesPassedThrough >= result.statistics.framesCancelled - echoless - 8)
        #expect(result.statistics.echoDelayMilliseconds == nil)
    }

    /// When the echo path changes under a settled filter (the player moved), the filter finds
    /// itself wrong and learns the new path as fast as the first.
    @Test func aChangedEchoPathIsLearnedAfresh() throws {
        let frame = 960
        let canceller = try CaptureEchoCanceller(frameSamples: frame)
        var random = SeededRandom(seed: 7)
        let count = 6 * 48_000
        let change = 3 * 48_000
        let far = (0..<count).map { _ in Float.random(in: -0.1...0.1, using: &random) }
        // 40 ms at half the level, then 47 ms, inverted, at 0.4.
        let echo: [Float] = (0..<count).map { index in
            index < change
                ? (index >= 1_920 ? 0.5 * far[index - 1_920] : 0) : -0.4 * far[index - 2_256]
        }
        var sent = [Float](repeating: 0, count: count)
        for tick in 1..<(count / frame) {
            let range = ((tick - 1) * frame)..<(tick * frame)
            echo.withUnsafeBufferPointer { echo in
                let output = canceller.cancel(UnsafeBufferPointer(rebasing: echo[range]), queuedSamples: frame)
                for (offset, sample) in output.enumerated() { sent[range.lowerBound + offset] = sample }
            }
            far.withUnsafeBufferPointer {
                canceller.played(UnsafeBufferPointer(rebasing: $0[(tick * frame)..<((tick + 1) * frame)]))
            }
        }
        // The second after the change, as the first second after the start is measured.
        let after = (change + 48_000)..<(change + 96_000)
        let enhancement = decibels(meanPower(echo[after]) / meanPower(sent[after]))
        #expect(enhancement >= 25, "ERLE in the second second after the change: \(enhancement) dB")
        #expect(canceller.statistics.filterRestarts == 1)
    }

    /// 2.5 ms frames take blocks of their own length.
    @Test func shortFramesAreCancelledToo() throws {
        let frame = 120
        let canceller = try CaptureEchoCanceller(frameSamples: frame)
        var random = SeededRandom(seed: 6)
        let count = 4 * 48_000
        let far = (0..<count).map { _ in Float.random(in: -0.1...0.1, using: &random) }
        let delay = 1_920 + 2 * frame
        var echoPower = 0.0
        var sentPower = 0.0
        for tick in 1..<(count / frame) {
            let range = ((tick - 1) * frame)..<(tick * frame)
            let captured = range.map { $0 >= delay ? 0.5 * far[$0 - delay] : 0 }
            let sent = captured.withUnsafeBufferPointer { Array(canceller.cancel($0, queuedSamples: 2 * frame)) }
            if range.lowerBound >= 2 * 48_000 {
                echoPower += meanPower(captured[...])
                sentPower += meanPower(sent[...])
            }
            far.withUnsafeBufferPointer {
                canceller.played(UnsafeBufferPointer(rebasing: $0[(tick * frame)..<((tick + 1) * frame)]))
            }
        }
        #expect(decibels(echoPower / sentPower) >= 25, "ERLE over the last 2 s: \(decibels(echoPower / sentPower)) dB")
    }

    @Test func framesAndSettingsItCannotTakeAreRefused() {
        #expect(throws: CodecError.self) { try CaptureEchoCanceller(frameSamples: 700) }
        var configuration = CaptureEchoCanceller.Configuration()
        configuration.tailMilliseconds = 0
        #expect(throws: CodecError.self) { try CaptureEchoCanceller(frameSamples: 960, configuration: configuration) }
        configuration = CaptureEchoCanceller.Configuration()
        configuration.residualSuppressionDB = 91
        #expect(throws: CodecError.self) { try CaptureEchoCanceller(frameSamples: 960, configuration: configuration) }
    }
}
