import Testing
import VoiceCodec
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

/// One packet the pipeline produced, with the frame it came from.
struct SentPacket {
    var frame: Int
    var bytes: [UInt8]
    var view: VoicePacketView

    var primary: [UInt8] { Array(bytes[view.primary]) }
    func redundant(_ index: Int) -> [UInt8] { Array(bytes[view.redundant(index).payload]) }
}

/// Drives a pipeline frame by frame, as the engine would.
struct SendDriver {
    let pipeline: VoiceSendPipeline
    var packetBuffer = [UInt8](repeating: 0, count: VoicePacketWriter.maximumPacketBytes)
    var frameNumber = 0

    init(_ configuration: SendConfiguration) throws {
        pipeline = try VoiceSendPipeline(configuration)
    }

    var frameSamples: Int { pipeline.configuration.frameSamples }

    /// Sends one frame and returns the packet, if one was written.
    mutating func send(_ frame: [Float]) throws -> SentPacket? {
        let now = MediaTime(frameNumber) * pipeline.configuration.frameDuration.nanoseconds
        let pipeline = self.pipeline
        let length = try frame.withUnsafeBufferPointer { samples in
            try packetBuffer.withUnsafeMutableBytes { try pipeline.process(samples, at: now, into: $0) }
        }
        defer { frameNumber += 1 }
        guard length > 0 else { return nil }
        let bytes = Array(packetBuffer[..<length])
        let view = try bytes.withUnsafeBytes { try VoicePacketView(parsing: $0) }
        return SentPacket(frame: frameNumber, bytes: bytes, view: view)
    }

    /// Sends `count` frames of `signal` (called with the frame's first sample index) and returns the packets.
    mutating func send(frames count: Int, _ signal: (Int) -> Float) throws -> [SentPacket] {
        var packets: [SentPacket] = []
        for _ in 0..<count {
            let start = frameNumber * frameSamples
            let frame = (start..<(start + frameSamples)).map(signal)
            if let packet = try send(frame) { packets.append(packet) }
        }
        return packets
    }
}

enum SendSignals {
    /// A loud tone (-13 dBFS RMS): speech to the gate.
    static func tone(_ index: Int) -> Float { 0.3 * Float(sin(2 * Double.pi * 330 * Double(index) / 48_000)) }
    static func silence(_ index: Int) -> Float { 0 }

    static func speech(filePath: String = #filePath) throws -> [Float] {
        var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // this file, VoiceMediaTests, Tests
        return try WAVAudio(contentsOfFile: components.joined(separator: "/") + "/Fixtures/speech-male.wav").samples
    }

    static func report(
        for configuration: SendConfiguration, fractionLost: Float, meanBurstLength: Float, jitterSamples: UInt32 = 0
    ) -> ReceiverReport {
        ReceiverReport(
            reporter: 99, source: configuration.sender, channel: configuration.channel, highestSequence: 0,
            fractionLost: fractionLost, meanBurstLength: meanBurstLength, cumulativeLost: 0,
            jitterSamples: jitterSamples,
            bufferDelayMilliseconds: 0)
    }
}

@Suite struct SendPipelineTests {
    @Test(arguments: [FrameDuration.ms20, .ms10, .ms5])
    func packetsCarryTheTimelineAndTheGateDecisions(frameDuration: FrameDuration) throws {
        let configuration = SendConfiguration(
            sender: 0xDEAD_BEEF, channel: 7, frameDuration: frameDuration, initialSequence: 65_530,
            initialTimestamp: 0xFFFF_F000)
        var driver = try SendDriver(configuration)
        let frameSamples = configuration.frameSamples
        let perSecond = Int(1_000 / frameDuration.milliseconds)
        let hangoverFrames = Int((configuration.gate.hangoverSeconds * Double(perSecond)).rounded())
        let keepAliveFrames = Int((configuration.keepAliveMilliseconds / frameDuration.milliseconds).rounded())

        // Silence 1 s, tone 0.5 s, silence 1.5 s, tone 0.3 s, silence 0.6 s (longer than the hangover).
        let plan: [(seconds: Double, loud: Bool)] = [(1, false), (0.5, true), (1.5, false), (0.3, true), (0.6, false)]
        var loudFrames = Set<Int>()
        var packets: [SentPacket] = []
        for (seconds, loud) in plan {
            let count = Int(seconds * Double(perSecond))
            if loud { loudFrames.formUnion(driver.frameNumber..<(driver.frameNumber + count)) }
            packets += try driver.send(frames: count, loud ? SendSignals.tone : SendSignals.silence)
        }
        let speechFrames = loudFrames.union(
            loudFrames.flatMap { frame in (frame + 1)...(frame + hangoverFrames) }.filter { !loudFrames.contains($0) })

        var decoder = try OpusDecoder()
        var pcm = [Float](repeating: 0, count: decoder.maximumFrameSamples)
        for (index, packet) in packets.enumerated() {
            let view = packet.view
            #expect(view.sender == 0xDEAD_BEEF && view.channel == 7)
            // Sequence counts packets (wrapping); timestamp counts captured frames (wrapping).
            #expect(view.sequence == 65_530 &+ UInt16(index))
            #expect(view.timestamp == 0xFFFF_F000 &+ UInt32(packet.frame * frameSamples))
            let speaking = view.flags.contains(.speaking)
            #expect(speaking == speechFrames.contains(packet.frame), "frame \(packet.frame)")
            let previousWasSpeech =
                index > 0 && packets[index - 1].frame == packet.frame - 1
                && packets[index - 1].view.flags.contains(.speaking)
            #expect(view.flags.contains(.talkSpurtStart) == (speaking && !previousWasSpeech), "frame \(packet.frame)")
            #expect(view.redundantCount == 0)
            let decoded = try packet.primary.withUnsafeBufferPointer { payload in
                try pcm.withUnsafeMutableBufferPointer { try decoder.decode(payload, into: $0) }
            }
            #expect(decoded == frameSamples)
        }

        // Every speech frame went out; silence only as the frame that ends a spurt and as
        // keep-alives at the keep-alive cadence from there.
        let sentFrames = packets.map(\.frame)
        #expect(Set(sentFrames).isSuperset(of: speechFrames))
        let keepAlives = packets.filter { !$0.view.flags.contains(.speaking) }.map(\.frame)
        #expect(keepAlives.first == 0)
        let silentStretchStart = speechFrames.filter { $0 < perSecond * 2 }.max()! + 1
        let keepAlivesInPause = keepAlives.filter { $0 >= silentStretchStart && $0 < perSecond * 3 }
        #expect(keepAlivesInPause.first == silentStretchStart)
        #expect(zip(keepAlivesInPause.dropFirst(), keepAlivesInPause).allSatisfy { $0 - $1 == keepAliveFrames })
        let spurtEnds = speechFrames.filter { !speechFrames.contains($0 + 1) }.map { $0 + 1 }
        #expect(Set(keepAlives).isSuperset(of: spurtEnds))
        #expect(packets.filter { $0.view.flags.contains(.talkSpurtStart) }.map(\.frame) == [perSecond, 3 * perSecond])

        let statistics = driver.pipeline.statistics
        #expect(statistics.framesCaptured == driver.frameNumber)
        #expect(statistics.packetsSent == packets.count)
        #expect(statistics.framesSuppressed == driver.frameNumber - packets.count)
        #expect(statistics.talkSpurts == 2)
        #expect(statistics.bytesSent == packets.reduce(0) { $0 + $1.bytes.count })
        #expect(statistics.redundancyBytes == 0)
    }

    /// A listener whose path just came up gets full packets through silence, so that it measures
    /// the path's delays before anyone speaks; then silence goes back to keep-alives. A muted
    /// microphone sends nothing, warm-up or not.
    @Test(arguments: [FrameDuration.ms20, .ms10])
    func aNewPathIsWarmedUpWithFullPacketsThroughSilence(frameDuration: FrameDuration) throws {
        let configuration = SendConfiguration(sender: 1, channel: 1, frameDuration: frameDuration)
        var driver = try SendDriver(configuration)
        let warmUp = VoiceSendPipeline.warmUpFrames
        let keepAliveFrames = Int((configuration.keepAliveMilliseconds / frameDuration.milliseconds).rounded())
        let tail = 3 * keepAliveFrames

        func sentFrames(_ count: Int) throws -> [Int] {
            let packets = try driver.send(frames: count, SendSignals.silence)
            #expect(packets.allSatisfy { !$0.view.flags.contains(.speaking) })
            return packets.map(\.frame)
        }
        let keepAlivesAfter = { (last: Int) in [1, 2, 3].map { last + $0 * keepAliveFrames } }

        // From the pipeline's start.
        #expect(try sentFrames(warmUp + tail) == Array(0..<warmUp) + keepAlivesAfter(warmUp - 1))

        // Again when a path comes up, from the next frame on.
        driver.pipeline.warmUpPath()
        let start = driver.frameNumber
        #expect(try sentFrames(warmUp + tail) == Array(start..<(start + warmUp)) + keepAlivesAfter(start + warmUp - 1))

        driver.pipeline.isMicrophoneMuted = true
        driver.pipeline.warmUpPath()
        #expect(try sentFrames(warmUp).isEmpty)
    }

    /// How many samples later a step in loudness comes out of the pipeline's packets than it went
    /// in: the encoder's look-ahead.
    private func codingDelay(frameDuration: FrameDuration) throws -> Int {
        let configuration = SendConfiguration(sender: 1, channel: 1, frameDuration: frameDuration)
        var driver = try SendDriver(configuration)
        let step = 24_000 + 77
        // A 1 kHz tone, loud enough for the gate throughout, four times louder after `step`.
        let packets = try driver.send(frames: 48_000 / configuration.frameSamples) { index in
            Float(index < step ? 0.1 : 0.4) * Float(sin(2 * Double.pi * 1_000 * Double(index) / 48_000))
        }
        #expect(packets.count == 48_000 / configuration.frameSamples)
        let decoded = try plainDecode(packets.map(\.primary))
        let onset = try #require(decoded.indices.first { $0 > step / 2 && abs(decoded[$0]) > 0.3 })
        return onset - step
    }

    /// Frames under 10 ms are CELT's alone, so they are coded without the speech application's
    /// extra 4 ms of held-back input: 2.5 ms of look-ahead (120 samples) instead of 6.5 ms (312).
    @Test func shortFramesAreCodedWithCELTsLookAheadOnly() throws {
        let short = try codingDelay(frameDuration: .ms5)
        let speech = try codingDelay(frameDuration: .ms10)
        #expect((100..<200).contains(short), "5 ms frames: the step came \(short) samples late")
        #expect((290..<390).contains(speech), "10 ms frames: the step came \(speech) samples late")
    }

    @Test func aMutedMicrophoneSendsNothingAndTheTimelineKeepsRunning() throws {
        let configuration = SendConfiguration(sender: 1, channel: 1)
        var driver = try SendDriver(configuration)
        driver.pipeline.isMicrophoneMuted = true
        // Silence first: the gate takes a tone that is there from the start for the room's noise.
        #expect(try driver.send(frames: 10, SendSignals.silence).isEmpty)
        #expect(try driver.send(frames: 40, SendSignals.tone).isEmpty)
        #expect(driver.pipeline.statistics.bytesSent == 0)
        #expect(driver.pipeline.statistics.framesMuted == 50)
        #expect(!driver.pipeline.isSpeaking)
        #expect(driver.pipeline.isSpeechDetected)
        #expect(driver.pipeline.inputMeter.rmsDBFS > -20)

        driver.pipeline.isMicrophoneMuted = false
        let packets = try driver.send(frames: 5, SendSignals.tone)
        #expect(packets.count == 5)
        #expect(packets[0].view.sequence == 0)
        #expect(packets[0].view.timestamp == 50 * 960)
        #expect(packets[0].view.flags == [.speaking, .talkSpurtStart])
        #expect(packets[1].view.flags == [.speaking])
        #expect(driver.pipeline.isSpeaking)

        // Muting in the middle of speech ends the talk spurt; unmuting starts a new one.
        driver.pipeline.isMicrophoneMuted = true
        #expect(try driver.send(frames: 3, SendSignals.tone).isEmpty)
        driver.pipeline.isMicrophoneMuted = false
        let resumed = try #require(try driver.send(frames: 1, SendSignals.tone).first)
        #expect(resumed.view.flags == [.speaking, .talkSpurtStart])
        #expect(resumed.view.sequence == 5)
        #expect(resumed.view.timestamp == 58 * 960)
    }

    /// The gate's threshold moves while the stream runs, and keeps the stream: a tone at −45 dBFS
    /// is speech under the default −55 and not under −40; noise suppression and gain control
    /// switch on and off; a threshold out of range is refused and changes nothing.
    @Test func speechProcessingChangesWhileTheStreamRuns() throws {
        var driver = try SendDriver(SendConfiguration(sender: 1, channel: 1))
        let amplitude = Float(pow(10, -45.0 / 20) * 2.0.squareRoot())
        let quietTone = { (index: Int) in amplitude * Float(sin(2 * Double.pi * 330 * Double(index) / 48_000)) }
        _ = try driver.send(frames: 10, SendSignals.silence)
        _ = try driver.send(frames: 5, quietTone)
        #expect(driver.pipeline.isSpeechDetected)

        try driver.pipeline.setSpeechProcessing(SpeechProcessing(voiceActivityThresholdDBFS: -40))
        _ = try driver.send(frames: 30, quietTone)  // past the gate's 0.4 s hangover
        #expect(!driver.pipeline.isSpeechDetected)
        #expect(driver.pipeline.speechProcessing.voiceActivityThresholdDBFS == -40)

        try driver.pipeline.setSpeechProcessing(SpeechProcessing(denoise: true, automaticGainControl: true))
        _ = try driver.send(frames: 5, quietTone)
        #expect(driver.pipeline.isSpeechDetected)
        #expect(driver.pipeline.speechProcessing == SpeechProcessing(denoise: true, automaticGainControl: true))

        #expect(throws: CodecError.self) {
            try driver.pipeline.setSpeechProcessing(SpeechProcessing(voiceActivityThresholdDBFS: 5))
        }
        #expect(driver.pipeline.speechProcessing == SpeechProcessing(denoise: true, automaticGainControl: true))
        // One stream throughout: numbering went on.
        let next = try #require(try driver.send(frames: 1, quietTone).first)
        #expect(next.view.timestamp == UInt32(50 * 960))
    }

    @Test func pushToTalkSendsOnlyWhileTheKeyIsDown() throws {
        var driver = try SendDriver(SendConfiguration(sender: 1, channel: 1))
        driver.pipeline.pushToTalk = true
        #expect(try driver.send(frames: 5, SendSignals.silence).isEmpty)
        #expect(try driver.send(frames: 5, SendSignals.tone).isEmpty)
        driver.pipeline.isTalkKeyDown = true
        let talking = try driver.send(frames: 10, SendSignals.tone)
        #expect(talking.map(\.frame) == Array(10..<20))
        #expect(talking.first?.view.flags.contains(.talkSpurtStart) == true)
        driver.pipeline.isTalkKeyDown = false
        #expect(try driver.send(frames: 10, SendSignals.tone).isEmpty)
        driver.pipeline.pushToTalk = false
        #expect(try driver.send(frames: 10, SendSignals.tone).count == 10)
        #expect(driver.pipeline.statistics.framesMuted == 20)
    }

    @Test func lowLossTurnsOnInbandFEC() throws {
        let configuration = SendConfiguration(sender: 5, channel: 2)
        var driver = try SendDriver(configuration)
        let speech = try SendSignals.speech()
        let clean = try driver.send(frames: 100) { speech[$0] }
        #expect(clean.allSatisfy { $0.view.redundantCount == 0 })
        #expect(
            !clean.contains { packet in
                packet.primary.withUnsafeBufferPointer { (try? OpusPacketInfo(parsing: $0).hasInbandFEC) ?? false }
            })

        driver.pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.02, meanBurstLength: 1))
        let statistics = driver.pipeline.statistics
        #expect(statistics.fecEnabled)
        #expect(statistics.packetLossHintPercent == 10)
        #expect(statistics.redundancyDepth == 0)

        let protected = try driver.send(frames: 200) { speech[$0] }
        let speechPackets = protected.filter { $0.view.flags.contains(.speaking) }
        #expect(protected.allSatisfy { $0.view.redundantCount == 0 })
        // libopus really spends bits on in-band FEC in most speech packets.
        let withFEC = speechPackets.filter { packet in
            packet.primary.withUnsafeBufferPointer { (try? OpusPacketInfo(parsing: $0).hasInbandFEC) ?? false }
        }
        #expect(withFEC.count > speechPackets.count / 2, "\(withFEC.count) of \(speechPackets.count)")
    }

    @Test func randomLossCarriesTwoEarlierFramesByDefault() throws {
        let configuration = SendConfiguration(sender: 5, channel: 2)
        var driver = try SendDriver(configuration)
        let speech = try SendSignals.speech()
        driver.pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 1.1))
        #expect(driver.pipeline.statistics.redundancyDepth == 2)
        #expect(!driver.pipeline.statistics.fecEnabled)
        let packets = try driver.send(frames: 300) { speech[$0] }
        let withTwo = packets.filter { packet in
            packet.view.redundantCount == 2 && packet.view.redundant0.timestampOffset == 960
                && packet.view.redundant1.timestampOffset == 1_920
        }
        #expect(withTwo.count > 150)
        // Two copies share the 72 kbit/s protected total with the frame: 24 kbit/s each.
        let bits = Double(withTwo.reduce(0) { $0 + $1.view.primary.count } * 8)
        let primaryBitrate = bits / (Double(withTwo.count) * 0.02)
        #expect(primaryBitrate > 16_000 && primaryBitrate < 28_000, "\(primaryBitrate) bit/s")
    }

    @Test func randomLossCarriesTheEarlierFrameVerbatimInsteadOfFEC() throws {
        var configuration = SendConfiguration(sender: 5, channel: 2)
        // One copy until reports show bursts (the default takes two at once).
        configuration.lossAdaptation.burstyOnMeanBurstLength = 1.5
        configuration.lossAdaptation.burstyOffMeanBurstLength = 1.25
        var driver = try SendDriver(configuration)
        let speech = try SendSignals.speech()
        driver.pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 1.1))
        let statistics = driver.pipeline.statistics
        #expect(statistics.redundancyDepth == 1)
        // The copies replace FEC, and the loss hint that would take bits from every frame.
        #expect(!statistics.fecEnabled)
        #expect(statistics.packetLossHintPercent == 0)

        let packets = try driver.send(frames: 300) { speech[$0] }
        let byFrame = Dictionary(uniqueKeysWithValues: packets.map { ($0.frame, $0) })
        let followers = packets.filter { packet in
            packet.view.flags.contains(.speaking) && byFrame[packet.frame - 1]?.view.flags.contains(.speaking) == true
        }
        #expect(followers.count > 150)
        #expect(followers.allSatisfy { $0.view.redundantCount == 1 && $0.view.redundant0.timestampOffset == 960 })
        #expect(packets.filter { $0.view.flags.contains(.talkSpurtStart) }.allSatisfy { $0.view.redundantCount == 0 })
        // Each copy is the previous packet's primary frame, byte for byte: decoding it in place of
        // a lost packet leaves the decoder exactly where that packet would have.
        #expect(followers.allSatisfy { $0.redundant(0) == byFrame[$0.frame - 1]!.primary })
        // With one copy the frames get half the 72 kbit/s protected total, at most the configured
        // 32 kbit/s.
        let bits = Double(followers.reduce(0) { $0 + $1.view.primary.count } * 8)
        let primaryBitrate = bits / (Double(followers.count) * 0.02)
        #expect(primaryBitrate > 26_000 && primaryBitrate < 36_000, "\(primaryBitrate) bit/s")
    }

    /// One payload through `decoder`: the samples it decoded.
    static func decode(_ payload: [UInt8], with decoder: inout OpusDecoder) throws -> [Float] {
        var pcm = [Float](repeating: 0, count: decoder.maximumFrameSamples)
        let count = try payload.withUnsafeBufferPointer { input in
            try pcm.withUnsafeMutableBufferPointer { try decoder.decode(input, into: $0) }
        }
        return Array(pcm[..<count])
    }

    private static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        var cross = 0.0
        var energyA = 0.0
        var energyB = 0.0
        for (x, y) in zip(a, b) {
            cross += Double(x) * Double(y)
            energyA += Double(x) * Double(x)
            energyB += Double(y) * Double(y)
        }
        return energyA > 0 && energyB > 0 ? cross / (energyA * energyB).squareRoot() : 0
    }

    @Test(arguments: [FrameDuration.ms20, .ms10, .ms5])
    func burstyLossCarriesOneFarFrameAndTheBytesAreCounted(frameDuration: FrameDuration) throws {
        // A delay budget with room for the far copy (the shipped one has none at 20 ms frames).
        let configuration = SendConfiguration(
            sender: 5, channel: 2, frameDuration: frameDuration,
            delayBudget: DelayBudget(maximumMilliseconds: 300, frameDuration: frameDuration))
        let frameSamples = configuration.frameSamples
        var driver = try SendDriver(configuration)
        let speech = try SendSignals.speech()
        // Reports keep showing bursts three packets long on average: the copy reaches back as far
        // as the 120 ms repair delay allows, or as far as the bursts need (6 frames at mean 3).
        for _ in 0..<12 {
            driver.pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3))
        }
        let reach = min(6, Int(120 / frameDuration.milliseconds))
        #expect(driver.pipeline.statistics.redundancyDepth == 1)
        #expect(driver.pipeline.statistics.redundancyReach == reach)
        let packets = try driver.send(frames: 6 * 48_000 / frameSamples) { speech[$0] }

        let byFrame = Dictionary(uniqueKeysWithValues: packets.map { ($0.frame, $0) })
        // A packet whose speech run goes back `reach` frames carries that frame's own bytes.
        let far = packets.filter { packet in
            (1...reach).allSatisfy { byFrame[packet.frame - $0]?.view.flags.contains(.speaking) == true }
                && !packet.view.flags.contains(.talkSpurtStart)
        }
        #expect(far.count > packets.count / 2)
        #expect(
            far.allSatisfy {
                $0.view.redundantCount == 1 && $0.view.redundant0.timestampOffset == reach * frameSamples
                    && $0.redundant(0) == byFrame[$0.frame - reach]!.primary
            })
        // A spurt's first packets reach only as far back as the spurt goes.
        for packet in packets where packet.view.redundantCount == 1 {
            let back = Int(packet.view.redundant0.timestampOffset) / frameSamples
            #expect(back >= 1 && back <= reach)
            #expect((1...back).allSatisfy { byFrame[packet.frame - $0]?.view.flags.contains(.speaking) == true })
        }

        let statistics = driver.pipeline.statistics
        let added = packets.reduce(0) { total, packet in
            total + packet.bytes.count - VoicePacketWriter.packetBytes(primaryBytes: packet.view.primary.count)
        }
        #expect(statistics.redundancyBytes == added)
        #expect(statistics.primaryBytes == packets.reduce(0) { $0 + $1.view.primary.count })
        #expect(statistics.redundantFramesSent == packets.reduce(0) { $0 + $1.view.redundantCount })
        #expect(statistics.bytesSent == packets.reduce(0) { $0 + $1.bytes.count })
        if frameDuration == .ms20 {
            // One copy leaves the primary at the full 32 kbit/s (a 72 kbit/s total would allow 36),
            // and the copy adds about as much again over the 6 s (speech is mostly sent).
            #expect(statistics.primaryBitrate > 26_000 && statistics.primaryBitrate < 36_000)
            #expect(statistics.redundancyBitrate > 20_000 && statistics.redundancyBitrate < 36_000)
        }
    }

    /// The copy never reaches beyond the sender's repair-delay budget, and the history it is
    /// taken from is sized by that budget.
    @Test func theRepairDelayBudgetCapsTheReach() throws {
        let roomy = DelayBudget(maximumMilliseconds: 300, frameDuration: .ms20)
        var configuration = SendConfiguration(
            sender: 5, channel: 2, maximumRepairDelayMilliseconds: 100, delayBudget: roomy)
        #expect(configuration.maximumRedundancyReach == 5)
        configuration.maximumRepairDelayMilliseconds = 0
        #expect(configuration.maximumRedundancyReach == 2)
        configuration.frameDuration = .ms2_5
        configuration.maximumRepairDelayMilliseconds = 1_000
        #expect(configuration.maximumRedundancyReach == 400)
        configuration.frameDuration = .ms60
        #expect(configuration.maximumRedundancyReach == 16)
        #expect(configuration.maximumRedundancyReach * configuration.frameSamples <= Int(UInt16.max))

        configuration = SendConfiguration(
            sender: 5, channel: 2, maximumRepairDelayMilliseconds: 100, delayBudget: roomy)
        var driver = try SendDriver(configuration)
        let speech = try SendSignals.speech()
        for _ in 0..<20 {
            driver.pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 8))
        }
        #expect(driver.pipeline.statistics.redundancyReach == 5)
        let packets = try driver.send(frames: 300) { speech[$0] }
        #expect(packets.contains { $0.view.redundantCount == 1 && $0.view.redundant0.timestampOffset == 5 * 960 })
        #expect(packets.allSatisfy { $0.view.redundant0.timestampOffset <= 5 * 960 })
    }

    /// Under the shipped budget the copies stay within what the listener may hold: at 20 ms frames
    /// the near copies (two frames) even when bursts would call for a far one; a budget changed
    /// while sending moves the limit from the next report on, and a tighter one cuts the copies at once.
    @Test func theDelayBudgetKeepsTheCopiesWithinWhatTheListenerMayHold() throws {
        let configuration = SendConfiguration(sender: 5, channel: 2)
        #expect(configuration.delayBudget.maximumRepairReach == 2)
        var driver = try SendDriver(configuration)
        for _ in 0..<12 {
            driver.pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3))
        }
        #expect(driver.pipeline.statistics.redundancyReachLimit == 2)
        #expect(driver.pipeline.statistics.redundancyDepth == 2 && driver.pipeline.statistics.redundancyReach == 2)
        let speech = try SendSignals.speech()
        let packets = try driver.send(frames: 200) { speech[$0] }
        #expect(packets.allSatisfy { $0.view.redundantCount == 0 || $0.view.redundant0.timestampOffset <= 2 * 960 })
        #expect(packets.allSatisfy { $0.view.redundantCount < 2 || $0.view.redundant1.timestampOffset <= 2 * 960 })

        driver.pipeline.setDelayBudget(DelayBudget(maximumMilliseconds: 300, frameDuration: .ms20))
        driver.pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3))
        #expect(driver.pipeline.statistics.redundancyReachLimit == 6)
        #expect(driver.pipeline.statistics.redundancyDepth == 1 && driver.pipeline.statistics.redundancyReach == 6)

        // 60 ms leaves the listener one frame beyond its margin: one copy of the previous frame.
        driver.pipeline.setDelayBudget(DelayBudget(maximumMilliseconds: 60, frameDuration: .ms20))
        #expect(driver.pipeline.statistics.redundancyReachLimit == 1)
        #expect(driver.pipeline.statistics.redundancyDepth == 1 && driver.pipeline.statistics.redundancyReach == 1)
        let tight = try driver.send(frames: 100) { speech[$0] }
        #expect(tight.allSatisfy { $0.view.redundantCount == 0 || $0.view.redundant0.timestampOffset == 960 })
        #expect(tight.contains { $0.view.redundantCount == 1 })
    }

    /// A listener whose jitter takes most of the budget leaves no room for far copies: the
    /// sender keeps to what the listener can still hold beside it, and goes back once it calms.
    @Test func theListenersJitterNarrowsTheReachWithinTheBudget() throws {
        let configuration = SendConfiguration(
            sender: 5, channel: 2, delayBudget: DelayBudget(maximumMilliseconds: 200, frameDuration: .ms20))
        let pipeline = try VoiceSendPipeline(configuration)
        // 163.5 ms to buffer: 20 of margin, and 7 frames for copies on a calm network (6 by history).
        for _ in 0..<12 {
            pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3))
        }
        #expect(pipeline.statistics.redundancyReachLimit == 6 && pipeline.statistics.redundancyReach == 6)
        // 13.3 ms of RFC 3550 jitter (40 ms uniform): about 40 ms of the buffer is the jitter's.
        for _ in 0..<3 {
            pipeline.apply(
                SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3, jitterSamples: 640))
        }
        #expect(pipeline.statistics.redundancyReachLimit == 5)
        #expect(pipeline.statistics.redundancyReach <= 5)
        // 40 ms of jitter takes all but one frame.
        pipeline.apply(
            SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3, jitterSamples: 1_920))
        #expect(pipeline.statistics.redundancyReachLimit == 1)
        #expect(pipeline.statistics.redundancyDepth == 1 && pipeline.statistics.redundancyReach == 1)
        pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3))
        #expect(pipeline.statistics.redundancyReachLimit == 6)
    }

    @Test func cleanReportsDecayTheProtectionWithHysteresis() throws {
        let configuration = SendConfiguration(
            sender: 5, channel: 2, delayBudget: DelayBudget(maximumMilliseconds: 300, frameDuration: .ms20))
        let pipeline = try VoiceSendPipeline(configuration)
        pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0.1, meanBurstLength: 3))
        // One report of bursts of three, counted by its bursts against a prior of bursts of one,
        // moves the steady burst length to about 2: one copy four frames back.
        #expect(pipeline.statistics.redundancyDepth == 1 && pipeline.statistics.redundancyReach == 4)

        var depths: [Int] = []
        var fec: [Bool] = []
        // Each clean report keeps three quarters of the estimate: 10 % falls below FEC's 0.5 % in 11.
        for _ in 0..<14 {
            pipeline.apply(SendSignals.report(for: configuration, fractionLost: 0, meanBurstLength: 0))
            depths.append(pipeline.statistics.redundancyDepth)
            fec.append(pipeline.statistics.fecEnabled)
        }
        // One clean report is not enough to drop anything; a few are. FEC stays off while copies
        // ride along and may come on for a while as the estimate decays below the copies' threshold.
        #expect(depths[0] >= 1 && !fec[0])
        #expect(depths.last == 0 && fec.last == false)
        #expect(pipeline.statistics.packetLossHintPercent == 0)
        #expect(zip(depths.dropFirst(), depths).allSatisfy { $0 <= $1 })
        #expect(pipeline.statistics.reportsApplied == 15)
    }

    @Test func reportsAboutOtherStreamsAreIgnored() throws {
        let configuration = SendConfiguration(sender: 5, channel: 2)
        let pipeline = try VoiceSendPipeline(configuration)
        var other = SendSignals.report(for: configuration, fractionLost: 0.5, meanBurstLength: 4)
        other.source = 6
        pipeline.apply(other)
        other.source = 5
        other.channel = 3
        pipeline.apply(other)
        #expect(pipeline.statistics.reportsIgnored == 2)
        #expect(!pipeline.statistics.fecEnabled && pipeline.statistics.redundancyDepth == 0)
    }

    /// Independent loss keeps the two near copies, even when a report shows a mean burst of two
    /// by chance, and at 20 % (where one far copy, one chance against their two, would lose more);
    /// lasting bursts move to one far copy.
    @Test func theFarCopyIsTakenOnlyWhenItLeavesLessUnrepaired() {
        var random = SendLossAdaptation(maximumReach: 6)
        for report in 0..<40 {
            random.update(fractionLost: 0.1, meanBurstLength: report % 4 == 0 ? 2 : 1.1)
            #expect(random.redundancyDepth == 2 && random.redundancyReach == 2)
        }
        var heavy = SendLossAdaptation(maximumReach: 6)
        for _ in 0..<40 { heavy.update(fractionLost: 0.2, meanBurstLength: 1.25) }
        #expect(heavy.redundancyDepth == 2 && heavy.redundancyReach == 2)

        var bursty = SendLossAdaptation(maximumReach: 6)
        var reaches: [Int] = []
        for _ in 0..<20 {
            bursty.update(fractionLost: 0.1, meanBurstLength: 3)
            reaches.append(bursty.redundancyReach)
        }
        #expect(bursty.redundancyDepth == 1 && bursty.redundancyReach == 6)
        // The reach grows with the steady burst length, never back and forth.
        #expect(zip(reaches.dropFirst(), reaches).allSatisfy { $0 >= $1 })
        #expect(abs(bursty.steadyMeanBurstLength - 3) < 0.02)

        // Even a reach of 3 beats the near copies on bursts of three: it repairs bursts up to 3
        // where they repair bursts up to 2.
        var shortBudget = SendLossAdaptation(maximumReach: 3)
        for _ in 0..<20 { shortBudget.update(fractionLost: 0.1, meanBurstLength: 3) }
        #expect(shortBudget.redundancyDepth == 1 && shortBudget.redundancyReach == 3)

        // Clean reports end the protection altogether.
        for _ in 0..<30 { bursty.update(fractionLost: 0, meanBurstLength: 0) }
        #expect(bursty.redundancyDepth == 0 && bursty.redundancyReach == 0)
    }

    /// Lasting bursts are met from the first report that shows them: each report counts by the
    /// bursts it saw, so the reach they call for (6 frames for bursts of three) comes in three
    /// reports, where an even average of reports starting from bursts of one took eight and the
    /// listener grew its hold at every step.
    @Test func longBurstsAreMetFromTheFirstReport() {
        var adaptation = SendLossAdaptation(maximumReach: 6)
        var reaches: [Int] = []
        for _ in 0..<4 {
            adaptation.update(fractionLost: 0.1, meanBurstLength: 3)
            reaches.append(adaptation.redundancyReach)
        }
        #expect(reaches == [4, 5, 6, 6])
        #expect(adaptation.redundancyDepth == 1)
        // The loss the far copy's own packet risks starts at the reports' value too.
        #expect(abs(adaptation.steadyFractionLost - 0.1) < 0.001)
    }

    @Test func theLossHintIsHighEnoughForLibopusToEmitFEC() {
        var adaptation = SendLossAdaptation()
        adaptation.update(fractionLost: 0.02, meanBurstLength: 1)
        #expect(adaptation.fecEnabled && adaptation.redundancyDepth == 0)
        #expect(adaptation.packetLossHintPercent(bitrate: 32_000) == 10)
        #expect(adaptation.packetLossHintPercent(bitrate: 24_000) == 10)
        #expect(adaptation.packetLossHintPercent(bitrate: 16_000) == 2)
        // Above the redundancy threshold the copies take over: no FEC, no hint.
        adaptation.update(fractionLost: 0.6, meanBurstLength: 2)
        #expect(adaptation.redundancyDepth == 2 && !adaptation.fecEnabled)
        #expect(adaptation.packetLossHintPercent(bitrate: 32_000) == 0)
        adaptation.update(fractionLost: .nan, meanBurstLength: .infinity)
        #expect(adaptation.fractionLost.isFinite && adaptation.meanBurstLength.isFinite)
    }

    @Test func badInputGetsAnError() throws {
        #expect(throws: CodecError.self) { try VoiceSendPipeline(SendConfiguration(sender: 1, channel: 1, bitrate: 1)) }
        #expect(throws: CodecError.self) {
            try VoiceSendPipeline(SendConfiguration(sender: 1, channel: 1, keepAliveMilliseconds: -5))
        }
        let pipeline = try VoiceSendPipeline(SendConfiguration(sender: 1, channel: 1))
        var packet = [UInt8](repeating: 0, count: VoicePacketWriter.maximumPacketBytes)
        let short = [Float](repeating: 0, count: 100)
        #expect(throws: CodecError.self) {
            _ = try short.withUnsafeBufferPointer { frame in
                try packet.withUnsafeMutableBytes { try pipeline.process(frame, at: 0, into: $0) }
            }
        }
        var small = [UInt8](repeating: 0, count: 100)
        let frame = [Float](repeating: 0, count: 960)
        #expect(throws: CodecError.self) {
            _ = try frame.withUnsafeBufferPointer { frame in
                try small.withUnsafeMutableBytes { try pipeline.process(frame, at: 0, into: $0) }
            }
        }
    }
}
