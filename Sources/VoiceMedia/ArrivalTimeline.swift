import VoiceCore
import VoiceWire

/// Where a stream's packets sit in time. Sequence numbers and timestamps are unwrapped into Int64
/// relative to the stream's first packet; the arrivals give the network's fastest-path reference
/// and the spread of delays behind it (`ArrivalDelayEstimator`), and the interarrival jitter.
/// A run of packets far off the timeline means the sender restarted its numbering: the stream
/// starts a new one; a single stray packet is dropped.
struct ArrivalTimeline {
    private var sequences = SerialNumberUnwrapper<UInt16>()
    private var timestamps = SerialNumberUnwrapper<UInt32>()
    private(set) var estimator: ArrivalDelayEstimator
    private(set) var jitter = InterarrivalJitter()
    /// False until the first packet, and while none has come since the stream started over.
    private(set) var isSynchronized = false
    private var farInARow = 0
    /// Packets since the timeline last started: how much the arrival-delay percentile has seen.
    private(set) var packetsSinceStart = 0
    /// Packets in a row far off the timeline that mean the sender restarted its numbering.
    private static let farRunForRestart = 8

    init(forgettingFactor: Double) {
        estimator = ArrivalDelayEstimator(bucketMilliseconds: 1, bucketCount: 1_000, forgettingFactor: forgettingFactor)
    }

    /// Where a packet stands against the timeline.
    enum Placement {
        /// On it (or the first of a new one: `restart()` was due and is done by the caller).
        case onTimeline
        /// The first packet, or the last of a run far off the timeline: it starts a new one.
        case startsTimeline
        /// Far off the timeline, alone so far: dropped.
        case stray
    }

    mutating func place(_ packet: VoicePacketView, arrival: MediaTime) -> Placement {
        guard isSynchronized else { return .startsTimeline }
        guard isFar(packet, arrival: arrival) else {
            farInARow = 0
            return .onTimeline
        }
        farInARow += 1
        return farInARow >= Self.farRunForRestart ? .startsTimeline : .stray
    }

    /// Forgets every packet: the next one starts the timeline.
    mutating func restart() {
        sequences.reset()
        timestamps.reset()
        estimator.reset()
        jitter.reset()
        isSynchronized = true
        farInARow = 0
        packetsSinceStart = 0
    }

    /// The packet's unwrapped sequence number and timestamp, and whether it is the newest so far.
    mutating func unwrap(_ packet: VoicePacketView) -> (sequence: Int64, timestamp: Int64, isNewest: Bool) {
        let newestBefore = sequences.hasValue ? sequences.newest : Int64.min
        let sequence = sequences.unwrap(packet.sequence)
        return (sequence, timestamps.unwrap(packet.timestamp), sequence >= newestBefore)
    }

    /// A packet (not a duplicate) arrived with `timestamp`.
    mutating func record(arrival: MediaTime, timestamp: Int64) {
        packetsSinceStart += 1
        jitter.record(arrival: arrival, timestamp: timestamp)
        estimator.record(transitOffset: arrival - MediaTime.duration(ofSamples: timestamp), arrival: arrival)
    }

    /// Forgets the fastest-path reference only (the network's delay rose for good).
    mutating func resetReference() {
        estimator.resetReference()
    }

    /// The sequence number of the newest packet, as the sender wrote it.
    var newestSequence: UInt16 { sequences.newestValue }

    /// True when the packet's timestamp is more than a minute away from where the arrival time
    /// puts it, or its sequence number is thousands away from the newest: a foreign or broken
    /// sender, or one that restarted.
    private func isFar(_ packet: VoicePacketView, arrival: MediaTime) -> Bool {
        let sequence = sequences.position(of: packet.sequence)
        if abs(sequence - sequences.newest) > 3_000 { return true }
        guard let offset = estimator.minimumTransitOffset else { return false }
        let expected = Double(arrival - offset) * Double(engineSampleRate) / 1e9
        let timestamp = Double(timestamps.position(of: packet.timestamp))
        return abs(timestamp - expected) > Double(engineSampleRate) * 60
    }
}
