import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

/// The plain reference receiver the engine is measured against: speexdsp's adaptive jitter
/// buffer feeding an Opus decoder, with Opus's packet-loss concealment for whatever is missing.
/// No in-band FEC, no redundancy, no adaptation of its own: what a straightforward VoIP client
/// built from the same two libraries does.
public final class BaselineReceiver: SimulatedListener {
    public let sender: UInt32
    public let channel: UInt16
    private let frameSamples: Int
    private var buffer: SpeexJitterBuffer
    private var decoder: OpusDecoder
    private let packet: UnsafeMutableRawBufferPointer
    private var counts = ReceiveStatistics()
    private var lostSinceReport = 0
    private var playedSinceReport = 0
    private var highestSequence: UInt16 = 0
    /// The newest timestamp received and the one last played, to estimate the buffer's delay.
    private var newestTimestamp: UInt32?
    private var playedTimestamp: UInt32?
    /// Buffer delay of every played frame, in 1 ms buckets (the last holds everything longer),
    /// for the mean and 95th percentile the engine's stream reports too.
    private var delayHistogram = [Int](repeating: 0, count: 1_001)
    private var delaySamples = 0
    private var delaySum = 0.0

    public init(sender: UInt32, channel: UInt16, frameDuration: FrameDuration) throws(CodecError) {
        self.sender = sender
        self.channel = channel
        frameSamples = frameDuration.engineFrames
        let buffer = try SpeexJitterBuffer(stepSamples: frameSamples, maximumPacketBytes: VoicePacketWriter.maximumPacketBytes)
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
        if let newest = newestTimestamp, Int32(bitPattern: view.timestamp &- newest) <= 0 {
            // Older than the newest: keep the newest.
        } else {
            newestTimestamp = view.timestamp
        }
        // Only the primary frame: the baseline knows nothing of redundancy.
        try? buffer.put(
            UnsafeRawBufferPointer(rebasing: bytes[view.primary]), timestamp: view.timestamp,
            span: UInt32(frameSamples), sequence: view.sequence)
    }

    public func pullFrame(into output: UnsafeMutableBufferPointer<Float>, at now: MediaTime) {
        defer {
            buffer.tick()
            if playedTimestamp != nil { recordDelay() }
        }
        let result = try? buffer.get(desiredSpan: frameSamples, into: packet)
        counts.totalSamplesPlayed += frameSamples
        playedSinceReport += 1
        if let result, result.status == .ok,
            (try? decoder.decode(
                UnsafeBufferPointer(rebasing: packet.bindMemory(to: UInt8.self)[0..<result.byteCount]), into: output))
                != nil
        {
            playedTimestamp = result.timestamp
            return
        }
        if let result, result.status == .missing, newestTimestamp != nil {
            counts.packetsLost += 1
            lostSinceReport += 1
        }
        if newestTimestamp == nil {
            output.update(repeating: 0)
            return
        }
        if (try? decoder.conceal(frames: frameSamples, into: output)) == nil {
            output.update(repeating: 0)
        }
        counts.concealedSamples += frameSamples
        if let played = playedTimestamp { playedTimestamp = played &+ UInt32(frameSamples) }
    }

    public func makeReport(reporter: UInt32) -> ReceiverReport {
        let fraction = playedSinceReport > 0 ? Float(lostSinceReport) / Float(playedSinceReport) : 0
        lostSinceReport = 0
        playedSinceReport = 0
        return ReceiverReport(
            reporter: reporter, source: sender, channel: channel, highestSequence: highestSequence,
            fractionLost: fraction, meanBurstLength: 1, cumulativeLost: UInt32(clamping: counts.packetsLost),
            jitterSamples: 0, bufferDelayMilliseconds: UInt16(clamping: Int(currentDelayMilliseconds.rounded())))
    }

    private func recordDelay() {
        let delay = currentDelayMilliseconds
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

    private var currentDelayMilliseconds: Double {
        guard let newest = newestTimestamp, let played = playedTimestamp else { return 0 }
        return max(0, Double(Int32(bitPattern: newest &- played))) * 1_000 / Double(engineSampleRate)
    }

    public var statistics: ReceiveStatistics {
        var statistics = counts
        statistics.currentDelayMilliseconds = currentDelayMilliseconds
        statistics.meanBufferingDelayMilliseconds = delaySamples > 0 ? delaySum / Double(delaySamples) : 0
        statistics.p95BufferingDelayMilliseconds = p95DelayMilliseconds
        return statistics
    }
}
