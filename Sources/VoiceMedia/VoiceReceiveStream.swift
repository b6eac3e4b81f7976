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
/// The stream takes packets in and keeps the timeline (`ArrivalTimeline`); the playout position,
/// each step and each repair are `StreamPlayout`'s, decoding `StreamDecoder`'s.
///
/// Thread contract: one thread at a time (the engine's media thread); it owns libopus decoders
/// through `StreamDecoder`. `insert`, `pullFrame` and `skipFrame` never allocate: every buffer is
/// taken at creation.
public final class VoiceReceiveStream {
    public let sender: MediaID
    public let channel: ChannelNumber
    public let configuration: JitterBufferConfiguration

    private let frameSamples: Int
    private let frameMilliseconds: Double
    private var timeline: ArrivalTimeline
    private let playout: StreamPlayout
    /// With `timeStretching` only: the decoded audio between playout and the mixer, and its squeezing.
    private let scaler: SpeechTimeScaler?
    private var stretching = PlayoutStretching()
    /// The most the target may be: the delay budget's share for buffering.
    public var targetCeilingMilliseconds: Double {
        get { playout.target.ceilingMilliseconds }
        set { playout.target.ceilingMilliseconds = newValue }
    }
    private var lateInARow = 0
    /// Late packets in a row that mean the network's delay jumped up for good (not a spike).
    private static let lateRunForRestart = 5

    /// Whether a loss burst longer than the sender's protection reaches (any burst while its
    /// packets carry no copies and no FEC) was booked since the last report: the sender should
    /// hear of it before the next regular report (see `ReportSchedule`).
    public var hasUnrepairableLoss: Bool { playout.ledger.loss.hasUnrepairableLoss }

    /// The level of what this stream played.
    public private(set) var meter = LevelMeter()
    private var speakingDetector = SpeakingDetector()

    /// Whether playout has started: the first frame played, and the stream has not started over since.
    public var isPlaying: Bool { playout.playing }

    /// Whether the speaker is heard talking, with hysteresis (see `SpeakingDetector`).
    public var isSpeaking: Bool { speakingDetector.isSpeaking }

    public init(sender: MediaID, channel: ChannelNumber, configuration: JitterBufferConfiguration) throws(CodecError) {
        try configuration.validate(operation: "VoiceReceiveStream.init")
        self.sender = sender
        self.channel = channel
        self.configuration = configuration
        frameSamples = configuration.frameDuration.engineFrames
        frameMilliseconds = configuration.frameDuration.milliseconds
        timeline = ArrivalTimeline(forgettingFactor: configuration.histogramForgettingFactor)
        playout = try StreamPlayout(configuration: configuration)
        scaler = configuration.timeStretching ? SpeechTimeScaler(frameSamples: frameSamples) : nil
    }

    // MARK: Statistics and reports

    public var statistics: ReceiveStatistics {
        var statistics = playout.counters
        let bufferingDelays = playout.bufferingDelays
        statistics.jitterMilliseconds = timeline.jitter.milliseconds
        statistics.currentDelayMilliseconds = bufferingDelays.lastMilliseconds
        statistics.playoutDelayMilliseconds = playout.playoutDelay
        statistics.targetDelayMilliseconds = playout.target.milliseconds
        statistics.targetCeilingMilliseconds = targetCeilingMilliseconds
        statistics.wantedTargetMilliseconds = playout.target.wantedMilliseconds
        statistics.repairDelayMilliseconds = Double(playout.protectionFrames) * frameMilliseconds
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
        let interval = playout.ledger.closeInterval()
        return ReceiverReport(
            reporter: reporter, source: sender, channel: channel, highestSequence: timeline.newestSequence,
            fractionLost: interval.fractionLost, meanBurstLength: interval.meanBurstLength,
            cumulativeLost: interval.cumulativeLost,
            jitterSamples: UInt32(clamping: Int(timeline.jitter.jitter.rounded())),
            bufferDelayMilliseconds: UInt16(clamping: Int(max(playout.playoutDelay, 0).rounded())))
    }

    // MARK: Packets in

    /// Hands in one parsed packet; its bytes are copied into the stream's own slots.
    public func insert(_ packet: VoicePacketView, bytes: UnsafeRawBufferPointer, arrival: MediaTime) {
        guard packet.sender == sender, packet.channel == channel else {
            playout.counters.foreignPackets += 1
            return
        }
        guard packet.isWellFormed(in: bytes, maximumPayloadBytes: playout.frames.primaries.slotBytes) else {
            playout.counters.malformedPackets += 1
            return
        }
        switch timeline.place(packet, arrival: arrival) {
        case .onTimeline: break
        case .startsTimeline: synchronize()
        case .stray:
            playout.counters.malformedPackets += 1
            return
        }
        let (sequence, timestamp, isNewest) = timeline.unwrap(packet)
        if playout.ledger.hasReceived(sequence) {
            playout.counters.packetsDuplicated += 1
            return
        }
        playout.ledger.noteReceived(sequence)
        playout.counters.packetsReceived += 1
        timeline.record(arrival: arrival, timestamp: timestamp)
        playout.target.isEstimateYoung = timeline.packetsSinceStart < PlayoutTarget.matureEstimatePackets
        if isNewest { playout.newestFlags = packet.flags }
        // The target holds as many frames more as the sender's protection reaches (see `PlayoutTarget`).
        playout.target.noteProtection(
            frames: packet.protectionFrames(in: bytes, frameSamples: frameSamples), at: arrival)
        playout.target.update(quantile: timeline.estimator.quantile(configuration.targetPercentile))

        if timestamp < playout.playoutTimestamp, playout.playing {
            playout.late(packet, bytes: bytes, sequence: sequence, timestamp: timestamp)
            lateInARow += 1
            if lateInARow >= Self.lateRunForRestart { restartPlayout() }
            return
        }
        lateInARow = 0
        playout.store(packet, bytes: bytes, sequence: sequence, timestamp: timestamp, arrival: arrival)
    }

    private func synchronize() {
        timeline.restart()
        playout.reset()
    }

    /// The network's delay rose beyond what the buffer holds and stayed there: every packet now
    /// comes after its frame. Waiting for the fastest-path reference to age out of its window
    /// would lose seconds of speech, so start over from the next packets, like a new talk spurt.
    private func restartPlayout() {
        timeline.resetReference()
        lateInARow = 0
        playout.restart()
    }

    // MARK: Frames out

    /// Produces exactly one frame of PCM for playout time `now` into `output` (its first
    /// `frameDuration` worth of samples; any rest is zeroed).
    public func pullFrame(into output: UnsafeMutableBufferPointer<Float>, at now: MediaTime) {
        let frame: UnsafeBufferPointer<Float>
        if let scaler {
            while scaler.count < frameSamples {
                let audio = advance(at: now, render: true)
                scaler.append(UnsafeBufferPointer(rebasing: playout.decoding.frame[0..<frameSamples]))
                if audio && playout.playing { squeeze(scaler, at: now) }
            }
            frame = scaler.takeFrame()
            stretching.notePlayed(samples: frameSamples)
        } else {
            advance(at: now, render: true)
            frame = UnsafeBufferPointer(rebasing: playout.decoding.frame[0..<frameSamples])
        }
        let count = min(output.count, frameSamples)
        _ = UnsafeMutableBufferPointer(rebasing: output[0..<count]).update(
            fromContentsOf: UnsafeBufferPointer(rebasing: frame[0..<count]))
        UnsafeMutableBufferPointer(rebasing: output[count...]).update(repeating: 0)
        meter.process(frame)
        // The frame's own level, not the meter's: the meter's slow release would keep a
        // speaker "speaking" for seconds into a pause; the detector's hold does the smoothing.
        _ = speakingDetector.update(
            levelDBFS: LevelMeter.decibels(power: meter.lastBlockPower), elapsedSeconds: frameMilliseconds / 1_000)
    }

    /// Squeezes the audio just decoded (see `PlayoutStretching`).
    private func squeeze(_ scaler: SpeechTimeScaler, at now: MediaTime) {
        let waiting = scaler.count - frameSamples
        guard let maximum = stretching.squeeze(frameLess: playout.wantsFrameLess, waitingSamples: waiting) else {
            return
        }
        let removed = scaler.shorten(maximum: maximum)
        stretching.noteSqueezed(samples: removed)
        playout.counters.samplesSqueezed += removed
        // Less than a frame waits now: the next frame is decoded at once, a frame earlier.
        if removed > waiting { playout.noteFrameSqueezedAway(at: now) }
    }

    /// The sender went out of this listener's range on a positional channel: its frames stop coming
    /// (neither it nor a relay sends what cannot be heard), so the gap before the next packet is no
    /// loss. One gap is forgiven, the first that shows.
    public func senderWentOutOfRange() {
        playout.ledger.senderWentOutOfRange()
    }

    /// Advances playout by one frame period without decoding, for a player nobody listens to:
    /// the buffer stays bounded and the statistics keep counting. The decoder restarts cleanly
    /// at the next `pullFrame`.
    public func skipFrame(at now: MediaTime) {
        scaler?.removeAll()
        advance(at: now, render: false)
        // Nothing of it is heard: the meter falls and the player stops "speaking", rather than
        // holding the last level heard for as long as nobody listens.
        meter.processSilence(frames: frameSamples)
        _ = speakingDetector.update(
            levelDBFS: LevelMeter.decibels(power: meter.lastBlockPower), elapsedSeconds: frameMilliseconds / 1_000)
    }

    @discardableResult
    private func advance(at now: MediaTime, render: Bool) -> Bool {
        let offset = timeline.isSynchronized ? timeline.estimator.minimumTransitOffset : nil
        return playout.advance(at: now, offset: offset, render: render)
    }
}
