/// Decides, datagram by datagram, which are lost: independently, or in bursts.
///
/// Bursty loss is the two-state Gilbert–Elliott model in its simple Gilbert form: a good state that
/// loses nothing and a bad state that loses everything. Each datagram first moves the state (good →
/// bad with probability p, bad → good with probability r), then is lost if the state is bad.
///
/// Deriving p and r from the loss rate L and mean burst length B:
/// - A burst is one stay in the bad state (the datagram after it is delivered, since the state is
///   then good), and a stay lasts k datagrams with probability (1 − r)^(k−1) r, a geometric law of
///   mean 1/r. So r = 1/B.
/// - The long-run fraction of time in the bad state is the chain's stationary probability
///   p / (p + r), which must equal L. So p = L r / (1 − L) = L / (B (1 − L)).
/// p ≤ 1 needs L ≤ B / (1 + B); beyond that p is clamped to 1 and the loss rate falls short
/// (`NetworkConditions.validate()` reports this). The first state is drawn from the stationary
/// distribution, so there is no warm-up.
///
/// With B ≤ 1 every datagram is lost independently with probability L. Note that independent loss
/// still has bursts by chance: their mean length is 1 / (1 − L), e.g. 1.11 at 10 %.
struct PacketLossModel: Sendable {
    private enum Kind: Sendable {
        case none
        case all
        case independent(Double)
        case bursty(goodToBad: Double, badToGood: Double)
    }

    private let kind: Kind
    private var isBad = false

    init(lossRate: Double, meanBurstLength: Double, random: inout SeededRandom) {
        let loss = lossRate.isFinite ? min(max(lossRate, 0), 1) : 0
        let burst = meanBurstLength.isFinite ? meanBurstLength : 1
        if loss <= 0 {
            kind = .none
        } else if loss >= 1 {
            kind = .all
        } else if burst <= 1 {
            kind = .independent(loss)
        } else {
            let badToGood = 1 / burst
            kind = .bursty(goodToBad: min(1, loss * badToGood / (1 - loss)), badToGood: badToGood)
            isBad = random.chance(loss)
        }
    }

    /// Whether the next datagram is lost.
    mutating func nextIsLost(_ random: inout SeededRandom) -> Bool {
        switch kind {
        case .none:
            return false
        case .all:
            return true
        case .independent(let probability):
            return random.chance(probability)
        case .bursty(let goodToBad, let badToGood):
            if isBad {
                if random.chance(badToGood) { isBad = false }
            } else if random.chance(goodToBad) {
                isBad = true
            }
            return isBad
        }
    }
}
