import Foundation
import VoiceCore

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
///
/// Stepped per datagram, a burst of B datagrams lasts B frames: twice as long in time at 20 ms
/// frames as at 10 ms. Bursts in time (a mean of `meanBurstMilliseconds`) step the same chain every
/// `timeStep` of the sender's clock instead, whatever is sent, so that frame lengths meet the same
/// holes; then B = meanBurstMilliseconds / timeStep steps, and a datagram is lost if the chain is bad
/// when it is sent. Between two datagrams k steps apart the chain moves in one draw: with
/// λ = 1 − p − r, it is bad with probability L + (1 − L) λ^k from bad, L (1 − λ^k) from good.
struct PacketLossModel: Sendable {
    /// How often a chain of bursts in time steps.
    static let timeStep: MediaTime = .milliseconds(10)

    private enum Kind: Sendable {
        case none
        case all
        case independent(Double)
        case bursty(goodToBad: Double, badToGood: Double)
        case burstyInTime(loss: Double, decay: Double)
    }

    private let kind: Kind
    private var isBad = false
    /// For bursts in time: the step the chain was last at.
    private var step: Int64?

    init(lossRate: Double, meanBurstLength: Double, meanBurstMilliseconds: Double = 0, random: inout SeededRandom) {
        let loss = lossRate.isFinite ? min(max(lossRate, 0), 1) : 0
        let inTime = meanBurstMilliseconds.isFinite && meanBurstMilliseconds > 0
        let burst =
            inTime
            ? meanBurstMilliseconds / Self.timeStep.milliseconds
            : (meanBurstLength.isFinite ? meanBurstLength : 1)
        if loss <= 0 {
            kind = .none
        } else if loss >= 1 {
            kind = .all
        } else if burst <= 1 {
            kind = .independent(loss)
        } else {
            let badToGood = 1 / burst
            let goodToBad = min(1, loss * badToGood / (1 - loss))
            kind =
                inTime
                ? .burstyInTime(loss: goodToBad / (goodToBad + badToGood), decay: 1 - goodToBad - badToGood)
                : .bursty(goodToBad: goodToBad, badToGood: badToGood)
            isBad = random.chance(loss)
        }
    }

    /// Whether the datagram sent at `time` (the next one) is lost.
    mutating func nextIsLost(at time: MediaTime, _ random: inout SeededRandom) -> Bool {
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
        case .burstyInTime(let loss, let decay):
            let now = time / Self.timeStep
            let steps = now - (step ?? now)
            step = now
            guard steps > 0 else { return isBad }
            let fading = steps >= 64 ? 0 : pow(decay, Double(steps))
            isBad = random.chance(isBad ? loss + (1 - loss) * fading : loss * (1 - fading))
            return isBad
        }
    }
}
