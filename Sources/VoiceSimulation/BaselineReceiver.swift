import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

/// The plain reference receiver the engine is measured against: speexdsp's adaptive jitter
/// buffer feeding an Opus decoder, with Opus's packet-loss concealment for whatever is missing.
/// No in-band FEC, no redundancy, no adaptation of its own: what a straightforward VoIP client
/// built from the same two libraries does.
public final class BaselineReceiver: SimulatedListener {
    public let sender: MediaID
    public let channel: ChannelNumber
    private let frameSamples: Int
    private var buffer: SpeexJitterBuffer
    private var decoder: OpusDecoder
    private let packet: UnsafeMutableRawBufferPointer
    private var counts = ReceiveStatistics()
    private var lostSinceReport = 0
    private var playedSinceReport = 0
    private var highestSequence: UInt16 = 0
    /// Whether any packet arrived yet: before the first, a missing frame is no loss.
    private var hasReceived = false
    /// Arrival times by timestamp for the last `arrivalSlots` frames, so that the delay of each
    /// played frame (arrival to playout, as the engine's stream measures it) is known.
    private var arrivals = [(timestamp: UInt32, time: MediaTime)](repeating: (0, -1), count: 256)
    private var lastDelayMilliseconds = 0.0
    /// Buffer delay of every played frame, in 1 ms buckets (the last holds everything longer),
    /// for the mean and 95th percentile the engine's stream reports too.
    private var delayHistogram = [Int](repeating: 0, count: 1_001)
    private var delaySamples = 0
    private var delaySum = 0.0

    public init(sender: MediaID, channel: ChannelNumber, frameDuration: FrameDuration) throws(CodecError) {
        self.sender = sender
        self.channel = channel
        frameSamples = frameDuration.engineFrames
        let buffer = try SpeexJitterBuffer(
            stepSamples: frameSamples, maximumPacketBytes: VoicePacketWriter.maximumPacketBytes)
        let decoder = try OpusDecoder()
        self.buffer = buffer
        self.decoder = decoder
        packet = .allocate(byteCount: VoicePacketWriter.maximumPacketBytes, alignment: 8)
    }

    deinit {
        packet.deallocate()
    }

    public func insert(_ view: VoicePacketView, bytes: UnsafeRawBufferPointer, arrival: MediaTime) {
        guard view.sender == sender, view.channel == channel else {
            counts.malformedPackets += 1
            return
        }
        counts.packetsReceived += 1
        highestSequence = view.sequence
        hasReceived = true
        arrivals[slot(of: view.timestamp)] = (view.timestamp, arrival)
        // Only the primary frame: the baseline knows nothing of redundancy.
        try? buffer.put(
            UnsafeRawBufferPointer(rebasing: bytes[view.primary]), timestamp: view.timestamp,
            span: UInt32(frameSamples), sequence: view.sequence)
    }

    public func pullFrame(into output: UnsafeMutableBufferPointer<Float>, at now: MediaTime) {
        defer { buffer.tick() }
        let result = try? buffer.get(desiredSpan: frameSamples, into: packet)
        counts.totalSamplesPlayed += frameSamples
        playedSinceReport += 1
        if let result, result.status == .ok,
            (try? decoder.decode(
                UnsafeBufferPointer(rebasing: packet.bindMemory(to: UInt8.self)[0..<result.byteCount]), into: output))
                != nil
        {
            let arrival = arrivals[slot(of: result.timestamp)]
            if arrival.timestamp == result.timestamp, arrival.time >= 0 {
                recordDelay(Double(now - arrival.time) / 1e6)
            }
            return
        }
        if let result, result.status == .missing, hasReceived {
            counts.packetsLost += 1
            lostSinceReport += 1
        }
        if !hasReceived {
            output.update(repeating: 0)
            return
        }
        if (try? decoder.conceal(frames: frameSamples, into: output)) == nil {
            output.update(repeating: 0)
        }
        counts.concealedSamples += frameSamples
    }

    private func slot(of timestamp: UInt32) -> Int {
        Int(timestamp / UInt32(frameSamples)) % arrivals.count
    }

    /// The plain reference reports on its interval only.
    public var hasUnrepairableLoss: Bool { false }

    public func makeReport(reporter: MediaID) -> ReceiverReport {
        let fraction = playedSinceReport > 0 ? Float(lostSinceReport) / Float(playedSinceReport) : 0
        lostSinceReport = 0
        playedSinceReport = 0
        return ReceiverReport(
            reporter: reporter, source: sender, channel: channel, highestSequence: highestSequence,
            fractionLost: fraction, meanBurstLength: 1, cumulativeLost: UInt32(clamping: counts.packetsLost),
            jitterSamples: 0, bufferDelayMilliseconds: UInt16(clamping: Int(lastDelayMilliseconds.rounded())))
    }

    private func recordDelay(_ delay: Double) {
        lastDelayMilliseconds = delay
        delayHistogram[min(delayHistogram.count - 1, Int(delay.rounded()))] += 1
        delaySamples += 1
        delaySum += delay
    }

    private var p95DelayMilliseconds: Double {
        var remaining = Int((Double(delaySamples) * 0.95).rounded(.up))
        for (milliseconds, count) in delayHistogram.enumerated() {
            remaining -= count
            if remaining <= 0 { return Double(milliseconds) }
        }
        return 0
    }

    public var statistics: ReceiveStatistics {
        var statistics = counts
        statistics.currentDelayMilliseconds = lastDelayMilliseconds
        statistics.meanBufferingDelayMilliseconds = delaySamples > 0 ? delaySum / Double(delaySamples) : 0
        statistics.p95BufferingDelayMilliseconds = p95DelayMilliseconds
        return statistics
    }
}
