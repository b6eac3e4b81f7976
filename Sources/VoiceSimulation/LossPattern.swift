/// Measures the loss rate and burst lengths of a sequence of delivered/lost outcomes, in order.
public struct LossPattern: Sendable, Hashable {
    public private(set) var packets = 0
    public private(set) var lost = 0
    /// Runs of consecutive losses.
    public private(set) var bursts = 0
    public private(set) var longestBurst = 0
    private var currentBurst = 0

    public init() {}

    /// Measures the outcomes of sequence numbers `0..<count` given which of them arrived.
    public init(count: Int, arrived: (Int) -> Bool) {
        for index in 0..<count { record(lost: !arrived(index)) }
    }

    public mutating func record(lost isLost: Bool) {
        packets += 1
        if isLost {
            lost += 1
            if currentBurst == 0 { bursts += 1 }
            currentBurst += 1
            longestBurst = max(longestBurst, currentBurst)
        } else {
            currentBurst = 0
        }
    }

    public var lossRate: Double { packets == 0 ? 0 : Double(lost) / Double(packets) }
    /// Mean length of a run of consecutive losses; 0 when nothing was lost.
    public var meanBurstLength: Double { bursts == 0 ? 0 : Double(lost) / Double(bursts) }
}
