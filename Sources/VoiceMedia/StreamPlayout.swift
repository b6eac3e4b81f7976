import VoiceCodec
import VoiceCore
import VoiceWire

/// A receive stream's way out: its playout position, the frames and copies waiting for it, and
/// what each frame does there (play a frame, repair or conceal a missing one, step in a pause or
/// a quiet frame toward the target, wait for a late packet). `VoiceReceiveStream` hands it what
/// arrives; see there for the policy as a whole.
///
/// One thread at a time, as its stream; never allocates after `init`.
final class StreamPlayout {
    let configuration: JitterBufferConfiguration
    private let frameSamples: Int
    private let frameMilliseconds: Double
    let decoding: StreamDecoder
    var frames: JitterBufferFrames
    var ledger = ReceptionLedger()
    /// The target delay and the band around it (see `PlayoutTarget`).
    var target: PlayoutTarget
    var counters = ReceiveStatistics()
    /// The flags of the newest packet: whether the speaker is talking now.
    var newestFlags: VoicePacketFlags = []
    /// Whether playout has started: the first frame played, and the stream has not started over since.
    private(set) var playing = false
    /// The media time of the next frame to play.
    private(set) var playoutTimestamp: Int64 = 0
    /// Delay of the playout position behind the fastest-path arrival (what the target steers).
    private(set) var playoutDelay: Double = 0
    private var targetDelay: Double { target.milliseconds }
    var protectionFrames: Int { target.protectionFrames }
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
    /// How far inside the band a step for a surplus frame must leave the position, ms.
    private static let surplusStepRoom = 1.5
    /// Arrival-to-playout time of the frames played from a packet.
    private(set) var bufferingDelays = BufferingDelayRecord()
    /// Whether the position has been a frame later than the packets need (see `SurplusFrameWatch`).
    private var surplus: SurplusFrameWatch

    /// Whether the frame just played left the delay far over its target with the next frame
    /// already here, and no quiet frame took the step: squeezing the speech may (see
    /// `PlayoutStretching`).
    private(set) var wantsFrameLess = false

    init(configuration: JitterBufferConfiguration) throws(CodecError) {
        self.configuration = configuration
        frameSamples = configuration.frameDuration.engineFrames
        frameMilliseconds = configuration.frameDuration.milliseconds
        decoding = try StreamDecoder(configuration: configuration)
        frames = JitterBufferFrames(slotCount: configuration.slotCount)
        target = PlayoutTarget(configuration: configuration)
        surplus = SurplusFrameWatch(frameMilliseconds: frameMilliseconds)
    }

    /// Squeezing the speech moved the position a frame earlier inside a talk spurt, as a skipped
    /// frame would have.
    func noteFrameSqueezedAway(at now: MediaTime) {
        counters.framesSqueezedAway += 1
        lastStepInsideSpurt = now
        surplus.restart()
    }

    /// The stream started a new timeline: nothing held, nothing played.
    func reset() {
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

    /// The network's delay rose for good: playout starts over from the next packets, like a new
    /// talk spurt.
    func restart() {
        playing = false
        clearUnderflow()
        holdingForTarget = false
        surplus.restart()
    }

    /// Stores a packet's frames at `timestamp`, numbered `sequence`: a packet reordered ahead of
    /// a stream that has not started playing moves the start to its frame.
    func store(
        _ packet: VoicePacketView, bytes: UnsafeRawBufferPointer, sequence: Int64, timestamp: Int64, arrival: MediaTime
    ) {
        if timestamp < playoutTimestamp {
            playoutTimestamp = timestamp
            ledger.startBefore(sequence)
        }
        let evicted = frames.store(
            packet, bytes: bytes, sequence: sequence, timestamp: timestamp, arrival: arrival,
            playoutTimestamp: playoutTimestamp)
        if let evicted {
            counters.framesDroppedForCatchUp += 1
            account(sequence: evicted)
        }
    }

    /// A packet came after its frame played. Its frame is decoded where nobody hears it if it is
    /// the one just concealed (see `StreamDecoder.decodeLate`).
    func late(_ packet: VoicePacketView, bytes: UnsafeRawBufferPointer, sequence: Int64, timestamp: Int64) {
        counters.packetsLate += 1
        surplus.restart()
        let payload = UnsafeRawBufferPointer(rebasing: bytes[packet.primary]).assumingMemoryBound(to: UInt8.self)
        if decoding.decodeLate(payload, timestamp: timestamp) { counters.lateFramesDecoded += 1 }
        ledger.noteLate(sequence)
    }

    private enum Outcome {
        case silence
        case audio
    }

    /// Moves playout on by one frame at `now` (`offset`: the fastest-path reference, nil while
    /// there is none), leaving in `decoding.frame` what plays: decoded when `render`, else silence.
    /// Returns whether what plays is audio (decoded, repaired or concealed), not silence.
    @discardableResult
    func advance(at now: MediaTime, offset: MediaTime?, render: Bool) -> Bool {
        wantsFrameLess = false
        let silent = produce(at: now, offset: offset, render: render) == .silence
        if silent || !render {
            decoding.silence()
        }
        if playing { counters.totalSamplesPlayed += frameSamples }
        return !silent && render
    }

    private var lowerBand: Double { target.lowerBand }
    private var upperBand: Double { target.upperBand }
    private var farAboveBand: Double { target.farAboveBand }
    private var isOverBudget: Bool { target.isOverBudget(playoutDelay) }

    private func delay(at now: MediaTime, offset: MediaTime, timestamp: Int64) -> Double {
        Double(now - offset) / 1e6 - Double(timestamp) * 1_000 / Double(engineSampleRate)
    }

    private func produce(at now: MediaTime, offset: MediaTime?, render: Bool) -> Outcome {
        guard let offset else { return .silence }
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
            let farAboveTarget = error > farAboveBand || isOverBudget
            let quiet = playPrimary(slot, at: now, render: render, farAboveTarget: farAboveTarget)
            let next = frames.primaries.slot(forTimestamp: timestamp + Int64(frameSamples))
            wantsFrameLess = farAboveTarget && next != nil && !target.isEstimateYoung
            if error > upperBand + 1 || hasSurplusFrame, quiet, let next {
                wantsFrameLess = false
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
