import VoiceCodec
import VoiceCore
import VoiceWire

/// The send path of one local participant in one channel: each captured frame goes through
/// optional speexdsp preprocessing, the `SpeechGate`, the input meter, microphone mute and
/// push-to-talk, Opus, and comes out as at most one voice packet.
///
/// **Silence.** The gate, not Opus's own DTX, decides what is silence: Opus DTX keys off
/// libopus's internal detector, which this pipeline cannot steer (its hangover, the noise floor
/// it adapts to) and which would disagree with the `speaking` flag. While the gate says silence,
/// nothing is sent except one keep-alive packet every `keepAliveMilliseconds` of captured audio
/// (400 ms, Opus DTX's own cadence): the current frame, coded normally and not flagged as speech,
/// which keeps NAT bindings and the listener's stream alive and lets its decoder hear the room's
/// real background. The first frame of silence after speech is sent the same way: it ends the talk
/// spurt at the listener, which would otherwise take the missing frames after the last speech
/// packet for a late packet and conceal while it waits for one. The first `warmUpFrames` frames
/// of the pipeline, and as many again after `warmUpPath()` (a listener whose path just came up),
/// are sent whatever the gate says, so that a new listener has measured the path's arrival
/// delays, and set its buffer by them in silence, before the first word instead of learning them
/// by concealing inside it. The encoder codes every frame of speech and of short pauses, so its
/// state is continuous; through a long silence it rests and, before the next frame it sends, codes
/// the last 40 ms it rested through, so that frame starts from recent input like any other
/// (`EncoderRest`): a listener whose microphone hears nothing spends no coding on it.
///
/// **Timeline.** The timestamp advances by one frame for every captured frame, sent or not, so
/// a silent stretch shows up at the listener as a timestamp jump; the sequence number advances by
/// one per packet sent, so a missing number always means a lost packet. The first speech packet
/// after silence, mute or push-to-talk release carries `talkSpurtStart`; keep-alives do not, so a
/// listener does not re-target its jitter buffer on every keep-alive. Time the microphone lost
/// (`skipLostFrames`) moves the timestamp on like a pause: the listener plays silence for it,
/// where stamping by frame count alone would make every later packet look that much late.
///
/// **Protection.** `apply(_:)` feeds receiver reports to a `SendLossAdaptation`, which switches
/// Opus in-band FEC and the packet-loss hint, and RED-like redundancy: each speech packet then
/// also carries copies of the previous two frames, or under lasting bursts one copy from as far
/// back as the bursts need (`SendLossAdaptation.redundancyReach`), as long as the frames copied
/// were sent as speech packets in the same run. A copy is the earlier frame's own bytes (as
/// RFC 2198 RED carries Opus in WebRTC): decoded in place of the lost packet it leaves the
/// listener's decoder exactly where the lost packet would have, so the frames after a repair
/// decode bit-exact. A re-encoding by a second, low-rate encoder would leave the decoder's
/// prediction state off and smear the next frames (measured: 0.5 dB SNR over a repaired frame
/// and the two after it with a separate low-rate stream, 17 dB decoding it with the main decoder,
/// exact here). The copies are made low-bitrate instead by lowering the primary encoder while they
/// ride along, so that the primary and its copies together stay within `protectedTotalBitrate`.
/// They never reach farther back than the listener can hold within the delay budget beside the
/// jitter its reports show (`DelayBudget.maximumRepairReach(jitterMilliseconds:)`).
///
/// Thread contract: one thread at a time (the engine thread). `process` neither allocates nor
/// locks on success: every buffer is made at creation.
public final class VoiceSendPipeline {
    public let configuration: SendConfiguration
    public var isMicrophoneMuted = false
    /// When true, frames are sent only while `isTalkKeyDown`.
    public var pushToTalk = false
    public var isTalkKeyDown = false

    public private(set) var inputMeter = LevelMeter()
    public private(set) var statistics: SendStatistics
    public private(set) var lossAdaptation: SendLossAdaptation
    /// The budget in force: the configuration's until `setDelayBudget`.
    public private(set) var delayBudget: DelayBudget
    /// The listener's RFC 3550 jitter in its last report, ms: its share of the budget.
    private var reportedJitterMilliseconds = 0.0
    /// True while the last frame went out as speech: the gate says speech and the microphone is live.
    public private(set) var isSpeaking = false

    /// What the gate said about the last frame, muted or not (to tell a muted user they are talking).
    public var isSpeechDetected: Bool { gate.isSpeech }
    /// Noise suppression, gain control and the gate's threshold now.
    public private(set) var speechProcessing: SpeechProcessing
    public var noiseFloorDBFS: Float { gate.noiseFloorDBFS }

    private var preprocessor: SpeechPreprocessor?
    private var gate: SpeechGate
    private var primaryEncoder: OpusEncoder
    /// Frames of a long silence held instead of coded (see `EncoderRest`).
    private var rest: EncoderRest

    private let frameSamples: Int
    private let keepAliveSamples: Int
    private let work: UnsafeMutableBufferPointer<Float>
    /// The encoded current frame and the ones before it, as far back as a copy may reach, by
    /// frame number modulo `historyFrames`: this packet's primary payload and later packets' copies.
    private let copies: UnsafeMutableBufferPointer<UInt8>
    private let copyLengths: UnsafeMutableBufferPointer<Int>
    private let historyFrames: Int

    private var sequence: UInt16
    private var timestamp: UInt32
    private var frameNumber = 0
    private var wasTransmitting = false
    /// Frames sent as speech packets in a row, up to and including the previous frame (counted
    /// up to the farthest reach).
    private var speechRun = 0
    private var samplesSinceLastPacket = 0
    /// Frames sent whatever the gate says when a path comes up: a second at 20 ms frames, what a
    /// listener's arrival-delay percentile needs to stand for the path.
    public static let warmUpFrames = 50
    /// Frames still to be sent whatever the gate says (see `warmUpPath`).
    private var warmUpFramesLeft = VoiceSendPipeline.warmUpFrames

    /// The largest encoded frame: a third of what a packet holds besides its header, so that a
    /// frame and two copies always fit (392 bytes: 156 kbit/s at 20 ms, far above voice rates).
    static let copyCapacity =
        (VoicePacketWriter.maximumPacketBytes - VoicePacketWriter.fixedHeaderBytes - 1
            - VoicePacketWriter.maximumRedundantFrames * VoicePacketWriter.redundantDescriptorBytes)
        / (VoicePacketWriter.maximumRedundantFrames + 1)

    public init(_ configuration: SendConfiguration) throws(CodecError) {
        try configuration.validate(operation: "VoiceSendPipeline.init")
        self.configuration = configuration
        frameSamples = configuration.frameSamples
        keepAliveSamples = Int((configuration.keepAliveMilliseconds * Double(engineSampleRate) / 1_000).rounded())
        speechProcessing = configuration.speechProcessing
        preprocessor = try Self.preprocessor(for: speechProcessing, frameSamples: configuration.frameSamples)
        do {
            gate = try SpeechGate(configuration.gate)
        } catch {
            throw CodecError(.invalidArgument, operation: "VoiceSendPipeline.init", message: error.description)
        }
        primaryEncoder = try OpusEncoder(configuration.primaryEncoder)
        rest = EncoderRest(
            frameSamples: configuration.frameSamples, frameMilliseconds: configuration.frameDuration.milliseconds)
        lossAdaptation = SendLossAdaptation(
            configuration.lossAdaptation, maximumReach: configuration.maximumRedundancyReach)
        delayBudget = configuration.delayBudget
        lossAdaptation.limitReach(to: configuration.delayBudget.maximumRepairReach)
        statistics = SendStatistics(frameDurationMilliseconds: configuration.frameDuration.milliseconds)
        statistics.redundancyReachLimit = lossAdaptation.reachLimit
        sequence = configuration.initialSequence
        timestamp = configuration.initialTimestamp

        work = .allocate(capacity: configuration.frameSamples)
        work.initialize(repeating: 0)
        historyFrames = lossAdaptation.maximumReach + 1
        copies = .allocate(capacity: historyFrames * Self.copyCapacity)
        copies.initialize(repeating: 0)
        copyLengths = .allocate(capacity: historyFrames)
        copyLengths.initialize(repeating: 0)
    }

    /// Switches noise suppression and gain control and moves the gate's threshold, keeping the
    /// stream (its numbering, encoder and the gate's noise floor). Makes a new speexdsp
    /// preprocessor when those change: call it off the engine's real-time thread.
    public func setSpeechProcessing(_ processing: SpeechProcessing) throws(CodecError) {
        try processing.validate(operation: "VoiceSendPipeline.setSpeechProcessing")
        if processing.denoise != speechProcessing.denoise
            || processing.automaticGainControl != speechProcessing.automaticGainControl
        {
            preprocessor = try Self.preprocessor(for: processing, frameSamples: frameSamples)
        }
        do {
            try gate.setAbsoluteThreshold(dbfs: processing.voiceActivityThresholdDBFS)
        } catch {
            throw CodecError(
                .invalidArgument, operation: "VoiceSendPipeline.setSpeechProcessing", message: error.description)
        }
        speechProcessing = processing
    }

    private static func preprocessor(for processing: SpeechProcessing, frameSamples: Int) throws(CodecError)
        -> SpeechPreprocessor?
    {
        guard processing.denoise || processing.automaticGainControl else { return nil }
        return try SpeechPreprocessor(
            SpeechPreprocessor.Configuration(
                frameSize: frameSamples, denoise: processing.denoise,
                automaticGainControl: processing.automaticGainControl))
    }

    deinit {
        work.deallocate()
        copies.deallocate()
        copyLengths.deallocate()
    }

    /// True when captured frames may go out: not muted, and the talk key is down if push-to-talk is on.
    public var isTransmitting: Bool { !isMicrophoneMuted && (!pushToTalk || isTalkKeyDown) }

    /// Processes one captured frame (`configuration.frameSamples` samples at 48 kHz) and writes at
    /// most one packet into `packet`, which must hold `VoicePacketWriter.maximumPacketBytes`.
    /// Returns the packet's length, or 0 when nothing is to be sent (muted, push-to-talk released,
    /// or silence between keep-alives). `now` is the frame's capture time; the packet's timing
    /// comes from the frame count, so irregular capture times do not bend the timeline.
    public func process(
        _ frame: UnsafeBufferPointer<Float>, at now: MediaTime, into packet: UnsafeMutableRawBufferPointer
    ) throws(CodecError) -> Int {
        guard frame.count == frameSamples else {
            throw CodecError(
                .invalidArgument, operation: "VoiceSendPipeline.process",
                message: "got \(frame.count) samples; one \(configuration.frameDuration) frame at 48 kHz is exactly "
                    + "\(frameSamples)")
        }
        guard packet.count >= VoicePacketWriter.maximumPacketBytes else {
            throw CodecError(
                .bufferTooSmall, operation: "VoiceSendPipeline.process",
                message: "the packet buffer holds \(packet.count) bytes; give it "
                    + "VoicePacketWriter.maximumPacketBytes (\(VoicePacketWriter.maximumPacketBytes))")
        }
        let frameTimestamp = timestamp
        timestamp &+= UInt32(frameSamples)
        let number = frameNumber
        frameNumber += 1
        statistics.framesCaptured += 1

        _ = work.update(fromContentsOf: frame)
        try preprocessor?.process(work)
        let speech = gate.process(UnsafeBufferPointer(work))
        inputMeter.process(UnsafeBufferPointer(work))

        guard isTransmitting else {
            wasTransmitting = false
            isSpeaking = false
            speechRun = 0
            statistics.framesMuted += 1
            return 0
        }
        if !wasTransmitting {
            // The encoders heard nothing while muted: start them afresh, and send at once.
            primaryEncoder.reset()
            rest.restart()
            wasTransmitting = true
            samplesSinceLastPacket = keepAliveSamples
        } else {
            samplesSinceLastPacket += frameSamples
        }

        let source = UnsafeBufferPointer(work)
        rest.note(speech: speech)
        // The first frame of silence after speech ends the spurt: sent unflagged, it tells the
        // listener the speaker stopped, where its absence would look like a late packet.
        let endsSpurt = !speech && isSpeaking
        let sending = speech || endsSpurt || samplesSinceLastPacket >= keepAliveSamples || warmUpFramesLeft > 0
        var primaryLength = 0
        if !sending && rest.isResting {
            rest.hold(source)
            statistics.framesRested += 1
        } else {
            // The encoder catches up on the input it rested through, unsent, then codes this frame.
            try rest.takeHeld { (held) throws(CodecError) in
                _ = try primaryEncoder.encode(held, into: copySlot(number))
            }
            primaryLength = try primaryEncoder.encode(source, into: copySlot(number))
            copyLengths[number % historyFrames] = primaryLength
        }

        guard sending else {
            isSpeaking = false
            speechRun = 0
            statistics.framesSuppressed += 1
            return 0
        }

        var flags: VoicePacketFlags = []
        var depth = 0
        if speech {
            flags.insert(.speaking)
            if speechRun == 0 { flags.insert(.talkSpurtStart) }
            depth = min(lossAdaptation.redundancyDepth, speechRun)
        }
        let primary = copy(number, offsetFrames: 0).payload
        // Two copies are the previous two frames; one is the frame `redundancyReach` back. A
        // spurt's first packets reach only as far back as the spurt goes.
        let reach = min(lossAdaptation.redundancyReach, speechRun)
        let nearest =
            switch depth {
            case 0: nil as (offset: UInt16, payload: UnsafeRawBufferPointer)?
            case 1: copy(number - reach, offsetFrames: reach)
            default: copy(number - 1, offsetFrames: 1)
            }
        let farther = depth == 2 ? copy(number - reach, offsetFrames: reach) : nil
        let written: Int
        do {
            written = try VoicePacketWriter.write(
                flags: flags, channel: configuration.channel, sender: configuration.sender, sequence: sequence,
                timestamp: frameTimestamp, primary: primary, redundant0: nearest, redundant1: farther,
                into: packet)
        } catch {
            // The payload budget makes this unreachable; report it rather than trap.
            throw CodecError(.internalError, operation: "VoiceSendPipeline.process", message: error.description)
        }

        sequence &+= 1
        samplesSinceLastPacket = 0
        warmUpFramesLeft = max(warmUpFramesLeft - 1, 0)
        isSpeaking = speech
        speechRun = speech ? min(speechRun + 1, lossAdaptation.maximumReach) : 0

        statistics.packetsSent += 1
        statistics.bytesSent += written
        statistics.primaryBytes += primaryLength
        let withoutRedundancy = VoicePacketWriter.packetBytes(primaryBytes: primaryLength)
        statistics.redundancyBytes += written - withoutRedundancy
        statistics.redundantFramesSent += depth
        if speech {
            statistics.speechPackets += 1
            if flags.contains(.talkSpurtStart) { statistics.talkSpurts += 1 }
        } else {
            statistics.keepAlivePackets += 1
        }
        return written
    }

    /// A listener's path just came up: send the next `warmUpFrames` frames whatever
    /// the gate says, so that its receive stream learns the path's delays before anyone speaks.
    public func warmUpPath() {
        warmUpFramesLeft = Self.warmUpFrames
    }

    /// The microphone lost `frames` frames of time (its device missed cycles and will never
    /// deliver them): the timeline moves on over them without a packet, as over a pause. The next
    /// speech packet starts a talk spurt and carries no copies, since the frames before it are not
    /// its neighbours.
    public func skipLostFrames(_ frames: Int) {
        guard frames > 0 else { return }
        timestamp &+= UInt32(truncatingIfNeeded: frames * frameSamples)
        frameNumber += frames
        samplesSinceLastPacket += frames * frameSamples
        speechRun = 0
        statistics.framesLost += frames
    }

    /// Keeps the copies within what `budget` leaves the listener to hold, from the next packet on.
    public func setDelayBudget(_ budget: DelayBudget) {
        delayBudget = budget
        lossAdaptation.limitReach(to: budget.maximumRepairReach(jitterMilliseconds: reportedJitterMilliseconds))
        applyProtection()
    }

    /// Adapts FEC, the loss hint and the redundancy depth to a listener's report about this
    /// pipeline's stream. Reports about another sender or channel are counted and ignored.
    public func apply(_ report: ReceiverReport) {
        guard report.source == configuration.sender, report.channel == configuration.channel else {
            statistics.reportsIgnored += 1
            return
        }
        reportedJitterMilliseconds = Double(report.jitterSamples) * 1_000 / Double(engineSampleRate)
        lossAdaptation.limitReach(to: delayBudget.maximumRepairReach(jitterMilliseconds: reportedJitterMilliseconds))
        lossAdaptation.update(fractionLost: report.fractionLost, meanBurstLength: report.meanBurstLength)
        statistics.reportsApplied += 1
        applyProtection()
    }

    /// Sets the encoder and the statistics to what the loss adaptation decided.
    private func applyProtection() {
        let fec = lossAdaptation.fecEnabled
        let bitrate = configuration.primaryBitrate(copies: lossAdaptation.redundancyDepth)
        let hint = lossAdaptation.packetLossHintPercent(bitrate: bitrate)
        do {
            if primaryEncoder.configuration.bitrate != bitrate { try primaryEncoder.setBitrate(bitrate) }
            if primaryEncoder.configuration.inbandFEC != fec { try primaryEncoder.setInbandFEC(fec) }
            if primaryEncoder.configuration.packetLossPercent != hint { try primaryEncoder.setPacketLossPercent(hint) }
        } catch {
            statistics.adaptationFailures += 1
        }
        statistics.fecEnabled = primaryEncoder.configuration.inbandFEC
        statistics.packetLossHintPercent = primaryEncoder.configuration.packetLossPercent
        statistics.redundancyDepth = lossAdaptation.redundancyDepth
        statistics.redundancyReach = lossAdaptation.redundancyReach
        statistics.redundancyReachLimit = lossAdaptation.reachLimit
        statistics.smoothedFractionLost = lossAdaptation.fractionLost
        statistics.smoothedMeanBurstLength = lossAdaptation.meanBurstLength
    }

    // MARK: Redundant copies

    private func copySlot(_ number: Int) -> UnsafeMutableBufferPointer<UInt8> {
        let start = (number % historyFrames) * Self.copyCapacity
        return UnsafeMutableBufferPointer(rebasing: copies[start..<(start + Self.copyCapacity)])
    }

    /// The copy of frame `number` (which must be within the history) as a redundant frame.
    private func copy(_ number: Int, offsetFrames: Int) -> (offset: UInt16, payload: UnsafeRawBufferPointer) {
        let slot = number % historyFrames
        let start = slot * Self.copyCapacity
        let payload = UnsafeRawBufferPointer(
            rebasing: UnsafeRawBufferPointer(copies)[start..<(start + copyLengths[slot])])
        return (UInt16(offsetFrames * frameSamples), payload)
    }
}
