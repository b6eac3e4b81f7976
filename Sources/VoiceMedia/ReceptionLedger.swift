/// What a receive stream got of its sender's sequence numbers: which came (a ring of the last
/// ones, which tells a duplicate, and a late packet from a lost one), how far playout has booked
/// them, and the loss that booking found (`ReceiveLossAccounting`).
struct ReceptionLedger {
    static let ringSize = 512
    private var received: [Int64]
    /// The newest sequence number whose frame playout has passed and booked.
    private(set) var lastAccounted: Int64 = -1
    /// Frames rebuilt from a copy or FEC since the last booking: lost, but not heard as lost.
    private var recoveredSinceAccounted = 0
    /// Set while the sender is out of this listener's range: see `senderWentOutOfRange()`.
    private var isOutOfRange = false
    private(set) var loss = ReceiveLossAccounting()

    init() {
        received = [Int64](repeating: Int64.min, count: Self.ringSize)
    }

    /// Forgets every sequence number, for a stream that starts over.
    mutating func reset() {
        for index in received.indices { received[index] = Int64.min }
        lastAccounted = -1
        recoveredSinceAccounted = 0
    }

    private static func slot(of sequence: Int64) -> Int {
        Int(sequence & Int64(ringSize - 1))
    }

    /// Whether `sequence` came, as far back as the ring reaches.
    func hasReceived(_ sequence: Int64) -> Bool {
        received[Self.slot(of: sequence)] == sequence
    }

    mutating func noteReceived(_ sequence: Int64) {
        received[Self.slot(of: sequence)] = sequence
    }

    /// A packet came after its frame played: booked as late if playout had already booked it lost.
    mutating func noteLate(_ sequence: Int64) {
        if sequence <= lastAccounted { loss.noteLateArrival() }
    }

    /// A packet reordered ahead of the stream's start: playout starts from its frame.
    mutating func startBefore(_ sequence: Int64) {
        lastAccounted = min(lastAccounted, sequence - 1)
    }

    mutating func noteRecovered() {
        recoveredSinceAccounted += 1
    }

    /// The sender went out of range: the next gap in its numbering is not loss.
    mutating func senderWentOutOfRange() {
        isOutOfRange = true
    }

    /// Books the frames between the last accounted sequence number and `sequence`: any number
    /// skipped whose packet never came was a frame missing at playout (a loss burst), repaired
    /// or not. Returns how many of them were heard as lost (not rebuilt).
    mutating func account(sequence: Int64, protectionFrames: Int) -> Int {
        guard sequence > lastAccounted else { return 0 }
        if isOutOfRange, sequence > lastAccounted + 1 {
            // The sender's frames stopped because the listener was out of its range, not in the network.
            isOutOfRange = false
            lastAccounted = sequence - 1
        }
        let gap = Int(sequence - lastAccounted - 1)
        // Packets of the gap that did come, after their frames were played, were received late,
        // not lost (see `ReceiveLossAccounting`). A sender that stalled sends them all at once, so they come
        // before any later packet shows the gap; those coming after are counted as they arrive.
        var arrivedLate = 0
        for skipped in (sequence - Int64(min(gap, Self.ringSize - 1)))..<sequence where hasReceived(skipped) {
            arrivedLate += 1
        }
        let missing = loss.book(gap: gap, arrivedLate: arrivedLate, protectionFrames: protectionFrames)
        let heardLost = missing > 0 ? max(0, missing - recoveredSinceAccounted) : 0
        recoveredSinceAccounted = 0
        lastAccounted = sequence
        return heardLost
    }

    /// The loss figures of the interval since the last call, for a receiver report.
    mutating func closeInterval() -> (fractionLost: Float, meanBurstLength: Float, cumulativeLost: UInt32) {
        loss.closeInterval()
    }
}
