import VoiceCore
import VoiceWire

/// The frames a receive stream holds until they play: each frame from its own packet (a
/// primary), and the redundant copies of frames whose own packet has not come (yet).
struct JitterBufferFrames: ~Copyable {
    var primaries: JitterBufferSlots
    /// Kept only for frames whose own packet has not come, so a quarter of the slots suffice.
    var redundants: JitterBufferSlots

    init(slotCount: Int) {
        let slotBytes = VoicePacketWriter.maximumPacketBytes
        primaries = JitterBufferSlots(capacity: slotCount, slotBytes: slotBytes)
        redundants = JitterBufferSlots(capacity: max(slotCount / 4, 8), slotBytes: slotBytes)
    }

    /// Stores a packet's primary frame (at `timestamp`, numbered `sequence`) and its copies of
    /// frames not yet played (from `playoutTimestamp` on) that nothing else holds. Returns the
    /// sequence number of a frame pushed out to make room, if any.
    mutating func store(
        _ packet: VoicePacketView, bytes: UnsafeRawBufferPointer, sequence: Int64, timestamp: Int64,
        arrival: MediaTime, playoutTimestamp: Int64
    ) -> Int64? {
        if let copy = redundants.slot(forTimestamp: timestamp) { redundants.release(copy) }
        var evicted: Int64?
        _ = primaries.store(
            timestamp: timestamp, sequence: sequence, flags: packet.flags.rawValue, arrival: arrival,
            payload: UnsafeRawBufferPointer(rebasing: bytes[packet.primary]), evicted: &evicted)
        for index in 0..<packet.redundantCount {
            let frame = packet.redundant(index)
            let copyTimestamp = timestamp - Int64(frame.timestampOffset)
            guard copyTimestamp >= playoutTimestamp,
                primaries.slot(forTimestamp: copyTimestamp) == nil,
                redundants.slot(forTimestamp: copyTimestamp) == nil
            else { continue }
            var ignored: Int64?
            _ = redundants.store(
                timestamp: copyTimestamp, sequence: sequence - Int64(index + 1), flags: packet.flags.rawValue,
                arrival: arrival, payload: UnsafeRawBufferPointer(rebasing: bytes[frame.payload]), evicted: &ignored)
        }
        return evicted
    }

    /// The frame after `timestamp` (`frameSamples` on), from its own packet or a redundant copy,
    /// and when it arrived.
    func frame(after timestamp: Int64, frameSamples: Int) -> (UnsafeBufferPointer<UInt8>, MediaTime)? {
        let next = timestamp + Int64(frameSamples)
        if let slot = primaries.slot(forTimestamp: next) {
            return (primaries.payload(at: slot), primaries.arrival(at: slot))
        }
        if let slot = redundants.slot(forTimestamp: next) {
            return (redundants.payload(at: slot), redundants.arrival(at: slot))
        }
        return nil
    }

    /// Frees every frame before `timestamp`; `passed` hears the sequence number of each primary.
    mutating func releaseAll(before timestamp: Int64, _ passed: (Int64) -> Void) {
        primaries.releaseAll(before: timestamp, passed)
        redundants.releaseAll(before: timestamp) { _ in }
    }

    mutating func removeAll() {
        primaries.removeAll()
        redundants.removeAll()
    }
}
