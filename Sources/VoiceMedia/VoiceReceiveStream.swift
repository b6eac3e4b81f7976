import VoiceCodec
import VoiceCore
import VoiceWire

/// One remote speaker in one channel: an adaptive jitter buffer, the Opus decoder and the
/// repairs (redundant copies, in-band FEC, concealment), a level meter and speaking detection.
///
/// **Timeline.** Sequence numbers and timestamps are unwrapped into Int64 relative to the
/// stream's first packet. The playout position `playoutTimestamp` is the media time of the
/// next frame to play; each `pullFrame` normally advances it by one frame. The *current delay*
/// is how long after a packet on the network's fastest path would have arrived its frame plays:
/// `now − minimumTransitOffset − playoutTime`. Every packet whose relative delay (see
/// `ArrivalDelayEstimator`) is below the current delay is in time.
///
/// **Target.** The target delay is a high percentile of the relative delays plus a margin,
/// clamped to the configured range. The buffer moves toward it by whole frames and only where
/// that is inaudible: in silence (pauses the sender did not send at all, DTX, and frames sent
/// without the speaking flag) it skips or repeats silent frames, which is also how each talk
/// spurt starts at the target. Inside a spurt the timeline stays fixed: a shift there moves
/// every later syllable (PESQ-WB, measured on a 13 s spurt: one 20 ms shift −0.06, two −0.34).
/// The delay then only grows where audio is concealed anyway (a frame missing with too little
/// buffered is concealed while the position holds, up to the target in one step), and a frame
/// missing with enough buffered is taken as lost and concealed in place, so a later packet's
/// copies repair the frames after it. A delay more than a frame over the top of its band is the
/// exception: it costs more than a shift does, so the low-energy frames inside the spurt (gaps
/// between words) are skipped until it is back within that frame. Above the hard ceiling it drops
/// frames at once.
///
/// **Clock drift.** A sender whose clock runs fast delivers media time slightly faster than the
/// listener plays it; the fastest-path reference then moves earlier and the current delay
/// creeps up by 0.2 ms per second at 200 ppm. Because that shows as an error against the
/// target like any other, the same control absorbs it: one frame skipped (sender fast) or
/// repeated (sender slow) every 100 s at 20 ms frames, placed in pauses. Whole-frame steps in
/// silence are inaudible and cost nothing, where time-stretching would alter speech; at ±200 ppm
/// the pauses of conversation come far more often than the steps are needed.
///
/// **Repair order** for a frame whose packet is missing: a redundant copy from a later packet,
/// then the next packet's in-band FEC (only when that packet carries FEC), then concealment. A
/// missing frame is told from a pause by sequence numbers: frames skipped in media time while
/// the sequence runs on without a gap were never sent (DTX), so they play as silence and count
/// as nothing.
///
/// Thread contract: one thread at a time (the engine's media thread); it owns libopus decoders
/// through `OpusDecoder`. `insert`, `pullFrame` and `skipFrame` never allocate: every buffer is
/// taken at creation.
public final class VoiceReceiveStream {
    public let sender: MediaID
    public let channel: ChannelNumber
    public let configuration: JitterBufferConfiguration

    private let frameSamples: Int
    private let frameMilliseconds: Double
    private let decoding: StreamDecoder
    private var frames: JitterBufferFrames

    private var timeline: ArrivalTimeline
    private var playing = false
    private var playoutTimestamp: Int64 = 0
    private var newestFlags: VoicePacketFlags = []
    private var ledger = ReceptionLedger()
    /// The target delay and the band around it (see `PlayoutTarget`).
    private var target: PlayoutTarget
    private var targetDelay: Double { target.milliseconds }
    private var protectionFrames: Int { target.protectionFrames }
    /// The most the target may be: the delay budget's share for buffering.
    public var targetCeilingMilliseconds: Double {
        get { target.ceilingMilliseconds }
        set { target.ceilingMilliseconds = newValue }
    }
    /// Delay of the playout position behind the fastest-path arrival (what the target steers).
    private var playoutDelay: Double = 0
    private var underflowFrames = 0
    /// Of `underflowFrames`, those concealed while the playout position moved on (taken as lost).
    private var underflowAdvancedFrames = 0
    /// Set while the playout position is held back, concealing, to raise the delay to its target
    /// in one step: inside a talk spurt the delay only grows where audio is concealed anyway.
    private var holdingForTarget = false
    /// When a low-energy frame inside a talk spurt was last skipped or repeated.
    private var lastStepInsideSpurt: MediaTime = .min / 2
    private static let stepInsideSpurtInterval: MediaTime = 10 * MediaTime.nanosecondsPerSecond
    /// Set when waiting for a late packet gave up; cleared when a packet plays.
    private var underflowExhausted = false
    private var pendingUnderflowSamples = 0
    private var lastOutputWasQuiet = true
    private var lateInARow = 0
    /// Late packets in a row that mean the network's delay jumped up for good (not a spike).
    private static let lateRunForRestart = 5
    /// How far inside the band a step for a surplus frame must leave the position, ms.
    private static let surplusStepRoom = 1.5
    private var counters = ReceiveStatistics()
    /// Arrival-to-playout time of the frames played from a packet.
    private var bufferingDelays = BufferingDelayRecord()
    /// Whether the position has been a frame later than the packets need (see `SurplusFrameWatch`).
    private var surplus: SurplusFrameWatch

    /// Whether a loss burst longer than the sender's protection reaches (any burst while its
    /// packets carry no copies and no FEC) was booked since the last report: the sender should
    /// hear of it before the next regular report (see `ReportSchedule`).
    public var hasUnrepairableLoss: Bool { ledger.loss.hasUnrepairableLoss }

    /// The level of what this stream played.
    public private(set) var meter = LevelMeter()
    private var speakingDetector = SpeakingDetector()

    /// Whether playout has started: the first frame played, and the stream has not started over since.
    public var isPlaying: Bool { playing }

    /// Whether the speaker is heard talking, with hysteresis (see `SpeakingDetector`).
    public var isSpeaking: Bool { speakingDetector.isSpeaking }

    public init(sender: MediaID, channel: ChannelNumber, configuration: JitterBufferConfiguration) throws(CodecError) {
        try configuration.validate(operation: "VoiceReceiveStream.init")
        self.sender = sender
        self.channel = channel
        self.configuration = configuration
        frameSamples = configuration.frameDuration.engineFrames
        frameMilliseconds = configuration.frameDuration.milliseconds
        decoding = try StreamDecoder(configuration: configuration)
        frames = JitterBufferFrames(slotCount: configuration.slotCount)
        timeline = ArrivalTimeline(forgettingFactor: configuration.histogramForgettingFactor)
        target = PlayoutTarget(configuration: configuration)
        surplus = SurplusFrameWatch(frameMilliseconds: frameMilliseconds)
    }

    // MARK: Statistics and reports

    public var statistics: ReceiveStatistics {
        var statistics = counters
        statistics.jitterMilliseconds = timeline.jitter.milliseconds
        statistics.currentDelayMilliseconds = bufferingDelays.lastMilliseconds
        statistics.playoutDelayMilliseconds = playoutDelay
        statistics.targetDelayMilliseconds = targetDelay
        statistics.targetCeilingMilliseconds = targetCeilingMilliseconds
        statistics.wantedTargetMilliseconds = target.wantedMilliseconds
        statistics.repairDelayMilliseconds = Double(protectionFrames) * frameMilliseconds
        if let mean = bufferingDelays.meanMilliseconds, let p95 = bufferingDelays.p95Milliseconds {
            statistics.meanBufferingDelayMilliseconds = mean
            statistics.p95BufferingDelayMilliseconds = p95
        }
        return statistics
    }

    /// A report for the interval since the previous call. The loss it reports is *before*
    /// repair (frames whose own packet was not there at playout, whether or not redundancy or
    /// FEC then rebuilt them): that is what the sender's protection has to cover.
    public func makeReport(reporter: MediaID) -> ReceiverReport {
        let interval = ledger.closeInterval()
        return ReceiverReport(
            reporter: reporter, source: sender, channel: channel, highestSequence: timeline.newestSequence,
            fractionLost: interval.fractionLost, meanBurstLength: interval.meanBurstLength,
            cumulativeLost: interval.cumulativeLost,
            jitterSamples: UInt32(clamping: Int(timeline.jitter.jitter.rounded())),
            bufferDelayMilliseconds: UInt16(clamping: Int(max(playoutDelay, 0).rounded())))
    }

    // MARK: Packets in

    /// Hands in one parsed packet; its bytes are copied into the stream's own slots.
    public func insert(_ packet: VoicePacketView, bytes: UnsafeRawBufferPointer, arrival: MediaTime) {
        guard packet.sender == sender, packet.channel == channel else {
            counters.foreignPackets += 1
            return
        }
        guard packet.isWellFormed(in: bytes, maximumPayloadBytes: frames.primaries.slotBytes) else {
            counters.malformedPackets += 1
            return
        }
        switch timeline.place(packet, arrival: arrival) {
        case .onTimeline: break
        case .startsTimeline: synchronize()
        case .stray:
            counters.malformedPackets += 1
            return
        }
        let (sequence, timestamp, isNewest) = timeline.unwrap(packet)
        if ledger.hasReceived(sequence) {
            counters.packetsDuplicated += 1
            return
        }
        ledger.noteReceived(sequence)
        counters.packetsReceived += 1
        timeline.record(arrival: arrival, timestamp: timestamp)
        target.isEstimateYoung = timeline.packetsSinceStart < PlayoutTarget.matureEstimatePackets
        if isNewest { newestFlags = packet.flags }
        // The target holds as many frames more as the sender's protection reaches (see `PlayoutTarget`).
        target.noteProtection(frames: packet.protectionFrames(in: bytes, frameSamples: frameSamples), at: arrival)
        target.update(quantile: timeline.estimator.quantile(configuration.targetPercentile))

        if timestamp < playoutTimestamp {
            guard !playing else {
                counters.packetsLate += 1
                surplus.restart()
                let payload = UnsafeRawBufferPointer(rebasing: bytes[packet.primary]).assumingMemoryBound(
                    to: UInt8.self)
                if decoding.decodeLate(payload, timestamp: timestamp) { counters.lateFramesDecoded += 1 }
                ledger.noteLate(sequence)
                lateInARow += 1
                if lateInARow >= Self.lateRunForRestart { restartPlayout() }
                return
            }
            // Reordered ahead of the stream's start: start from the earlier frame.
            playoutTimestamp = timestamp
            ledger.startBefore(sequence)
        }

        lateInARow = 0
        let evicted = frames.store(
            packet, bytes: bytes, sequence: sequence, timestamp: timestamp, arrival: arrival,
            playoutTimestamp: playoutTimestamp)
        if let evicted {
            counters.framesDroppedForCatchUp += 1
            account(sequence: evicted)
        }
    }

    private func synchronize() {
        timeline.restart()
        frames.removeAll()
        ledger.reset()
        playing = false
        playoutTimestamp = 0
        clearUnderflow()
        holdingForTarget = false
        pendingUnderflowSamples = 0
        decoding.isStale = true
        surplus.restart()
        target.isEstimateYoung = true
        target.update(quantile: 0)
    }

    /// The network's delay rose beyond what the buffer holds and stayed there: every packet now
    /// comes after its frame. Waiting for the fastest-path reference to age out of its window
    /// would lose seconds of speech, so start over from the next packets, like a new talk spurt.
    private func restartPlayout() {
        timeline.resetReference()
        playing = false
        lateInARow = 0
        clearUnderflow()
        holdingForTarget = false
        surplus.restart()
    }

    // MARK: Frames out

    /// Produces exactly one frame of PCM for playout time `now` into `output` (its first
    /// `frameDuration` worth of samples; any rest is zeroed).
    public func pullFrame(into output: UnsafeMutableBufferPointer<Float>, at now: MediaTime) {
        advance(at: now, render: true)
        let count = min(output.count, frameSamples)
        output.baseAddress?.update(from: decoding.frame.baseAddress!, count: count)
        UnsafeMutableBufferPointer(rebasing: output[count...]).update(repeating: 0)
        let frame = UnsafeBufferPointer(rebasing: decoding.frame[0..<frameSamples])
        meter.process(frame)
        // The frame's own level, not the meter's: the meter's slow release would keep a
        // speaker "speaking" for seconds into a pause; the detector's hold does the smoothing.
        _ = speakingDetector.update(
            levelDBFS: LevelMeter.decibels(power: meter.lastBlockPower), elapsedSeconds: frameMilliseconds / 1_000)
    }

    /// The sender went out of this listener's range on a positional channel: its frames stop coming
    /// (neither it nor a relay sends what cannot be heard), so the gap before the next packet is no
    /// loss. One gap is forgiven, the first that shows.
    public func senderWentOutOfRange() {
        ledger.senderWentOutOfRange()
    }

    /// Advances playout by one frame period without decoding, for a player nobody listens to:
    /// the buffer stays bounded and the statistics keep counting. The decoder restarts cleanly
    /// at the next `pullFrame`.
    public func skipFrame(at now: MediaTime) {
        advance(at: now, render: false)
        // Nothing of it is heard: the meter falls and the player stops "speaking", rather than
        // holding the last level heard for as long as nobody listens.
        meter.processSilence(frames: frameSamples)
        _ = speakingDetector.update(
            levelDBFS: LevelMeter.decibels(power: meter.lastBlockPower), elapsedSeconds: frameMilliseconds / 1_000)
    }

    private enum Outcome {
        case silence
        case audio
    }

    private func advance(at now: MediaTime, render: Bool) {
        let silent = produce(at: now, render: render) == .silence
        if silent || !render {
            decoding.silence()
        }
        if playing { counters.totalSamplesPlayed += frameSamples }
    }

    private var lowerBand: Double { target.lowerBand }
    private var upperBand: Double { target.upperBand }
    private var farAboveBand: Double { target.farAboveBand }
    private var isOverBudget: Bool { target.isOverBudget(playoutDelay) }

    private func delay(at now: MediaTime, offset: MediaTime, timestamp: Int64) -> Double {
        Double(now - offset) / 1e6 - Double(timestamp) * 1_000 / Double(engineSampleRate)
    }

    private func produce(at now: MediaTime, render: Bool) -> Outcome {
        guard timeline.isSynchronized, let offset = timeline.estimator.minimumTransitOffset else { return .silence }
        if !playing {
            guard let first = frames.primaries.earliestSlot(atOrAfter: Int64.min + 1) else { return .silence }
            playoutTimestamp = frames.primaries.timestamp(at: first)
            playoutDelay = delay(at: now, offset: offset, timestamp: playoutTimestamp)
            guard playoutDelay - targetDelay >= lowerBand else { return .silence }
            playing = true
            surplus.restart()
        }
        playoutDelay = delay(at: now, offset: offset, timestamp: playoutTimestamp)
        catchUpIfOverCeiling()

        let error = playoutDelay - targetDelay
        let timestamp = playoutTimestamp
        // A frame less would still leave the position inside the band, with room for the
        // target's wobbles, so the step is not undone at the next quiet frame.
        let hasSurplusFrame =
            surplus.hasSurplusFrame(at: now) && error - frameMilliseconds >= lowerBand + Self.surplusStepRoom

        if holdingForTarget {
            if error < lowerBand && newestFlags.contains(.speaking) && !decoding.isStale {
                return holdForTarget(render: render)
            }
            holdingForTarget = false
        }

        if let slot = frames.primaries.slot(forTimestamp: timestamp) {
            // Inside a spurt the band is a millisecond wider on each side than in silence, so the
            // steps that drift needs fall in the pauses whenever there are any.
            if error < lowerBand - 1 && lastOutputWasQuiet {
                // Too little buffered: play the quiet stretch a frame longer, and this frame next time.
                counters.framesInserted += 1
                lastStepInsideSpurt = now
                surplus.restart()
                return repeatQuietFrame(render: render)
            }
            let quiet = playPrimary(slot, at: now, render: render, farAboveTarget: error > farAboveBand || isOverBudget)
            let next = frames.primaries.slot(forTimestamp: timestamp + Int64(frameSamples))
            if error > upperBand + 1 || hasSurplusFrame, quiet, let next {
                // Too much buffered and this frame is quiet: it was decoded (the decoder state
                // stays continuous) but the next one replaces it.
                counters.framesDropped += 1
                lastStepInsideSpurt = now
                surplus.restart()
                playoutDelay -= frameMilliseconds
                _ = playPrimary(next, at: now, render: render, farAboveTarget: false)
            }
            return .audio
        }

        if let next = frames.primaries.earliestSlot(atOrAfter: timestamp + 1) {
            let nextTimestamp = frames.primaries.timestamp(at: next)
            let missing = frames.primaries.sequence(at: next) - ledger.lastAccounted - 1
            if missing > 0 && nextTimestamp - timestamp <= missing * Int64(frameSamples) {
                return repairMissingFrame(nextSlot: next, at: now, render: render)
            }
            givePauseBackAfterUnderflow(before: nextTimestamp)
            return playPause(
                error: playoutDelay - targetDelay, nextTimestamp: nextTimestamp, hasSurplusFrame: hasSurplusFrame)
        }

        if newestFlags.contains(.speaking), !underflowExhausted,
            Double(underflowFrames + 1) * frameMilliseconds <= configuration.maximumUnderflowConcealmentMilliseconds
        {
            // The speaker was talking but nothing is here: the packet is late or lost. Conceal
            // and wait for it instead of moving on (the delay grows by a frame, as the network's
            // did). Whether this was really concealment is known once the next packet comes.
            underflowFrames += 1
            surplus.restart()
            pendingUnderflowSamples += frameSamples
            lastOutputWasQuiet = false
            let outcome = conceal(render: render)
            if playoutDelay - targetDelay < lowerBand {
                holdingForTarget = true
            } else {
                // The buffer holds what the measured delays need: a packet missing now is lost,
                // not late. Waiting would shift the rest of the talk spurt; keep the timeline
                // and let a later packet's copies repair the frames after this one.
                underflowAdvancedFrames += 1
                if render && outcome == .audio { decoding.concealedFrameTimestamp = playoutTimestamp }
                playoutTimestamp += Int64(frameSamples)
                releasePassedFrames()
            }
            return outcome
        }
        if underflowFrames > 0 {
            underflowExhausted = true
            givePauseBackAfterUnderflow(before: nil)
        }
        return playPause(error: playoutDelay - targetDelay, nextTimestamp: nil, hasSurplusFrame: hasSurplusFrame)
    }

    /// Waiting for a packet that turned out to be a pause (nothing came, or the next packet
    /// follows on in sequence after a jump in time) held the playout position back; the waited
    /// frames belonged to the pause, so the position moves on by them again instead of the
    /// delay growing. Whether the concealment counts is settled when the next packet plays.
    private func givePauseBackAfterUnderflow(before nextTimestamp: Int64?) {
        guard underflowFrames > 0 else { return }
        var position = playoutTimestamp + Int64((underflowFrames - underflowAdvancedFrames) * frameSamples)
        if let nextTimestamp { position = min(position, nextTimestamp) }
        playoutDelay -= Double(position - playoutTimestamp) * 1_000 / Double(engineSampleRate)
        playoutTimestamp = position
        clearUnderflow()
        releasePassedFrames()
    }

    private func clearUnderflow() {
        underflowFrames = 0
        underflowAdvancedFrames = 0
    }

    /// Conceals without moving the playout position, so the delay grows toward its target.
    private func holdForTarget(render: Bool) -> Outcome {
        holdingForTarget = true
        surplus.restart()
        counters.framesInserted += 1
        counters.concealedSamples += frameSamples
        lastOutputWasQuiet = false
        return conceal(render: render)
    }

    private func catchUpIfOverCeiling() {
        guard playoutDelay > configuration.hardCeilingMilliseconds else { return }
        let frames = Int(((playoutDelay - targetDelay) / frameMilliseconds).rounded(.down))
        guard frames > 0 else { return }
        playoutTimestamp += Int64(frames * frameSamples)
        counters.framesDroppedForCatchUp += frames
        playoutDelay -= Double(frames) * frameMilliseconds
        surplus.restart()
        releasePassedFrames()
        clearUnderflow()
    }

    /// A stretch the sender did not send (a pause in DTX), or a stream gone idle: silence, and
    /// the cheapest place to move the delay toward its target.
    private func playPause(error: Double, nextTimestamp: Int64?, hasSurplusFrame: Bool) -> Outcome {
        lastOutputWasQuiet = true
        let frame = Int64(frameSamples)
        var advance = frame
        if error > upperBand || hasSurplusFrame, nextTimestamp.map({ $0 - playoutTimestamp >= 2 * frame }) ?? true {
            advance = 2 * frame
            counters.framesDropped += 1
            surplus.restart()
        } else if error < lowerBand {
            advance = 0
            counters.framesInserted += 1
            surplus.restart()
        }
        var position = playoutTimestamp + advance
        if let nextTimestamp {
            let gap = nextTimestamp - position
            if gap < 0 || (gap > 0 && gap < frame) {
                // The next talk spurt does not start on this frame grid: line it up with the
                // grid inside the silence, leaning toward the target.
                position = error >= 0 ? nextTimestamp : max(nextTimestamp - frame, playoutTimestamp)
            }
        }
        playoutTimestamp = position
        releasePassedFrames()
        return .silence
    }

    /// Plays the primary frame in `slot`; returns whether it was quiet (sent outside speech or
    /// decoded under the low-energy threshold) and may be skipped.
    private func playPrimary(_ slot: Int, at now: MediaTime, render: Bool, farAboveTarget: Bool) -> Bool {
        let sequence = frames.primaries.sequence(at: slot)
        let flags = VoicePacketFlags(rawValue: frames.primaries.flags(at: slot))
        if pendingUnderflowSamples > 0 {
            // Frames concealed while waiting were real concealment unless this packet opens a
            // new talk spurt right after the last one: then the speaker had simply paused.
            if !(flags.contains(.talkSpurtStart) && sequence == ledger.lastAccounted + 1) {
                counters.concealedSamples += pendingUnderflowSamples
            }
            pendingUnderflowSamples = 0
        }
        clearUnderflow()
        underflowExhausted = false
        let wait = now - frames.primaries.arrival(at: slot)
        recordBufferingDelay(wait)
        surplus.notePlayed(
            waitMilliseconds: Double(wait) / 1e6, reachMilliseconds: Double(protectionFrames) * frameMilliseconds,
            at: now)
        var quiet = !flags.contains(.speaking)
        if render {
            if decoding.decode(frames.primaries.payload(at: slot), with: .mainDecoder) {
                // A low-energy frame inside a spurt may take a step too, but rarely: often enough
                // for clock drift (one step per 100 s at 200 ppm), not for every wobble of the
                // target. Far over the target, every one may (see `farAboveBand`).
                quiet =
                    quiet
                    || ((farAboveTarget || now - lastStepInsideSpurt >= Self.stepInsideSpurtInterval)
                        && decoding.isQuiet(below: configuration.lowEnergyDBFS))
            } else {
                counters.malformedPackets += 1
                _ = conceal(render: true)
                counters.concealedSamples += frameSamples
            }
        } else {
            decoding.isStale = true
        }
        lastOutputWasQuiet = quiet
        account(sequence: sequence)
        playoutTimestamp = frames.primaries.timestamp(at: slot) + Int64(frameSamples)
        frames.primaries.release(slot)
        releasePassedFrames()
        return quiet
    }

    /// The frame at the playout position never came: rebuild it from the best source there is.
    private func repairMissingFrame(nextSlot: Int, at now: MediaTime, render: Bool) -> Outcome {
        let timestamp = playoutTimestamp
        if pendingUnderflowSamples > 0 {
            counters.concealedSamples += pendingUnderflowSamples
            pendingUnderflowSamples = 0
        }
        clearUnderflow()
        underflowExhausted = false
        var repaired = false
        if let copy = frames.redundants.slot(forTimestamp: timestamp) {
            if !render || decoding.decode(frames.redundants.payload(at: copy), with: configuration.redundancyDecoding) {
                repaired = true
                counters.recoveredByRedundancy += 1
                recordBufferingDelay(now - frames.redundants.arrival(at: copy))
            }
        }
        if !repaired, let (next, arrival) = frames.frame(after: timestamp, frameSamples: frameSamples),
            (try? OpusDecoder.hasInbandFEC(next)) == true
        {
            // The next frame's own packet, or a copy of it, carries Opus's low-bitrate re-encoding
            // of this one.
            if !render || decoding.decodeFEC(from: next) {
                repaired = true
                counters.recoveredByFEC += 1
                recordBufferingDelay(now - arrival)
            }
        }
        if !repaired && playoutDelay - targetDelay < lowerBand && !decoding.isStale {
            // Too little buffered for the sender's repair depth: a later packet may still bring
            // this frame. Conceal without moving on, and keep doing so up to the target, so the
            // delay grows once, inside this concealment, instead of at several places.
            return holdForTarget(render: render)
        }
        if repaired {
            ledger.noteRecovered()
            lastOutputWasQuiet =
                render ? decoding.isQuiet(below: configuration.lowEnergyDBFS) : false
        } else {
            if conceal(render: render) == .audio && render { decoding.concealedFrameTimestamp = timestamp }
            counters.concealedSamples += frameSamples
            lastOutputWasQuiet = false
        }
        if !render { decoding.isStale = true }
        playoutTimestamp = timestamp + Int64(frameSamples)
        releasePassedFrames()
        return .audio
    }

    /// One more frame continuing the quiet audio just played, without moving the playout position.
    private func repeatQuietFrame(render: Bool) -> Outcome {
        conceal(render: render)
    }

    @discardableResult
    private func conceal(render: Bool) -> Outcome {
        decoding.conceal(render: render) ? .audio : .silence
    }

    /// Frees every slot the playout position has passed; frames that arrived but were never
    /// played (skipped) still count as received, not lost.
    private func releasePassedFrames() {
        frames.releaseAll(before: playoutTimestamp) { sequence in account(sequence: sequence) }
    }

    /// Books the frames up to `sequence` (see `ReceptionLedger.account`).
    private func account(sequence: Int64) {
        counters.packetsLost += ledger.account(sequence: sequence, protectionFrames: protectionFrames)
    }

    private func recordBufferingDelay(_ nanoseconds: MediaTime) {
        bufferingDelays.record(nanoseconds)
    }
}
