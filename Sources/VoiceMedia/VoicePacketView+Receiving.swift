import VoiceCodec
import VoiceWire

extension VoicePacketView {
    /// Whether every frame the packet names lies inside `bytes`, is not empty and fits a slot of
    /// `maximumPayloadBytes`, and each copy lies before the primary frame.
    func isWellFormed(in bytes: UnsafeRawBufferPointer, maximumPayloadBytes: Int) -> Bool {
        func fits(_ range: Range<Int>) -> Bool {
            !range.isEmpty && range.lowerBound >= 0 && range.upperBound <= bytes.count
                && range.count <= maximumPayloadBytes
        }
        guard fits(primary), (0...VoicePacketWriter.maximumRedundantFrames).contains(redundantCount)
        else { return false }
        for index in 0..<redundantCount {
            let frame = redundant(index)
            guard fits(frame.payload), frame.timestampOffset > 0 else { return false }
        }
        return true
    }

    /// How many frames later a lost frame can still be rebuilt, from what the sender is putting
    /// in this packet: a frame lost in packet n comes back in packet n + 1 (a redundant copy, or
    /// Opus's in-band FEC) or n + k (a copy k frames back, which a sender facing bursty loss
    /// reaches as far as the bursts need).
    func protectionFrames(in bytes: UnsafeRawBufferPointer, frameSamples: Int) -> Int {
        func hasFEC(_ range: Range<Int>) -> Bool {
            (try? OpusDecoder.hasInbandFEC(UnsafeBufferPointer(rebasing: bytes.bindMemory(to: UInt8.self)[range])))
                == true
        }
        // A copy k frames back repairs that frame, and the frame before it when the copy carries FEC.
        var frames = hasFEC(primary) ? 1 : 0
        for index in 0..<redundantCount {
            let frame = redundant(index)
            let back = Int(frame.timestampOffset) / frameSamples
            frames = max(frames, back + (hasFEC(frame.payload) ? 1 : 0))
        }
        return frames
    }
}
