import Foundation
import Testing
import VoiceCore
import VoiceSimulation

@Suite struct SimulatedNetworkTests {
    let millisecond = MediaTime.nanosecondsPerMillisecond

    @Test func sameSeedGivesTheSameDeliverySequence() {
        let conditions = NetworkConditions(
            lossRate: 0.1, meanBurstLength: 2, baseDelayMilliseconds: 30, jitterMilliseconds: 50,
            duplicateRate: 0.05, delaySpikeRate: 0.01, delaySpikeMilliseconds: 150)
        let first = runNetwork(SimulatedNetwork(conditions: conditions, seed: 77), count: 5_000)
        let second = runNetwork(SimulatedNetwork(conditions: conditions, seed: 77), count: 5_000)
        let other = runNetwork(SimulatedNetwork(conditions: conditions, seed: 78), count: 5_000)
        #expect(first.count > 4_000)
        #expect(first == second)
        #expect(first != other)
    }

    @Test func perfectPathDeliversEverythingInOrderAfterTheBaseDelay() {
        let network = SimulatedNetwork(conditions: .perfect, seed: 1)
        let arrivals = runNetwork(network, count: 1_000)
        #expect(arrivals.map(\.index) == Array(0..<1_000))
        #expect(arrivals.allSatisfy { $0.delay == 20 * millisecond })
        #expect(network.statistics.delivered == 1_000 && network.statistics.reordered == 0)
        #expect(network.inFlight == 0)
    }

    /// Independent loss (burst length 1) has chance bursts of mean length 1 / (1 − L); the bursty
    /// model hits the configured mean exactly in the long run.
    @Test(arguments: [(0.05, 1.0), (0.10, 1.0), (0.10, 3.0), (0.20, 3.0)])
    func longRunLossRateAndBurstLengthMatchTheConditions(lossRate: Double, meanBurstLength: Double) {
        let count = 200_000
        let network = SimulatedNetwork(
            conditions: NetworkConditions(lossRate: lossRate, meanBurstLength: meanBurstLength), seed: 2024)
        let arrivals = runNetwork(network, count: count)
        var arrived = [Bool](repeating: false, count: count)
        for arrival in arrivals { arrived[arrival.index] = true }
        let pattern = LossPattern(count: count) { arrived[$0] }

        let expectedBurst = meanBurstLength <= 1 ? 1 / (1 - lossRate) : meanBurstLength
        #expect(abs(pattern.lossRate - lossRate) / lossRate < 0.04, "loss rate \(pattern.lossRate)")
        #expect(
            abs(pattern.meanBurstLength - expectedBurst) / expectedBurst < 0.04,
            "mean burst \(pattern.meanBurstLength)")
        #expect(network.statistics.dropped == pattern.lost)
        #expect(network.statistics.sent == count)
    }

    /// Bursts in time last as long whatever the sender's frame length: at 10 ms frames a 60 ms
    /// burst takes six datagrams; at 20 ms, every second step of the chain is seen, so a burst
    /// takes 1 / (1 − P(bad two steps on | bad)) datagrams, about 3.3 (66 ms). Per datagram, the
    /// same mean of 6 would last 120 ms at 20 ms frames.
    @Test(arguments: [10, 20])
    func burstsInTimeLastAsLongAtAnyFrameLength(frameMilliseconds: Int) {
        let count = 2_000_000 / frameMilliseconds
        let network = SimulatedNetwork(
            conditions: NetworkConditions(lossRate: 0.10, meanBurstMilliseconds: 60), seed: 2026)
        let arrivals = runNetwork(network, count: count, interval: .milliseconds(Double(frameMilliseconds)))
        var arrived = [Bool](repeating: false, count: count)
        for arrival in arrivals { arrived[arrival.index] = true }
        let pattern = LossPattern(count: count) { arrived[$0] }

        let (loss, badToGood) = (0.10, 1.0 / 6)
        let decay = 1 - loss * badToGood / (1 - loss) - badToGood
        let steps = Double(frameMilliseconds / 10)
        let stayBad = loss + (1 - loss) * pow(decay, steps)
        let expectedBurst = 1 / (1 - stayBad)
        #expect(abs(pattern.lossRate - loss) / loss < 0.06, "loss rate \(pattern.lossRate)")
        #expect(
            abs(pattern.meanBurstLength - expectedBurst) / expectedBurst < 0.06,
            "mean burst \(pattern.meanBurstLength) datagrams, expected \(expectedBurst)")
        let milliseconds = pattern.meanBurstLength * Double(frameMilliseconds)
        #expect((55...72).contains(milliseconds), "a burst lasts \(milliseconds) ms")
    }

    @Test func jitterReordersAndKeepsEveryDelayInRange() {
        let network = SimulatedNetwork(
            conditions: NetworkConditions(baseDelayMilliseconds: 20, jitterMilliseconds: 60), seed: 5)
        let arrivals = runNetwork(network, count: 10_000)
        #expect(arrivals.count == 10_000)
        #expect(arrivals.allSatisfy { $0.delay >= 20 * millisecond && $0.delay <= 80 * millisecond })
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $0.deliveredAt <= $1.deliveredAt })

        var latest = -1
        var reordered = 0
        for arrival in arrivals {
            if arrival.index < latest { reordered += 1 } else { latest = arrival.index }
        }
        #expect(reordered > 500)
        #expect(network.statistics.reordered == reordered)
        // Uniform in [0, 60] ms: the mean extra delay is near 30 ms.
        let meanExtra = arrivals.map { Double($0.delay - 20 * millisecond) }.reduce(0, +) / 10_000 / 1e6
        #expect(abs(meanExtra - 30) < 1.5)
    }

    @Test func duplicatesArriveTwiceAtTheConfiguredRate() {
        let count = 100_000
        let network = SimulatedNetwork(conditions: NetworkConditions(duplicateRate: 0.05), seed: 9)
        let arrivals = runNetwork(network, count: count)
        var copies = [Int](repeating: 0, count: count)
        for arrival in arrivals { copies[arrival.index] += 1 }
        let duplicated = copies.filter { $0 == 2 }.count
        #expect(copies.allSatisfy { $0 == 1 || $0 == 2 })
        #expect(duplicated == network.statistics.duplicated)
        #expect(abs(Double(duplicated) / Double(count) - 0.05) < 0.004)
        #expect(network.statistics.delivered == count + duplicated)
    }

    @Test func delaySpikeDrainsAsTimePasses() {
        let network = SimulatedNetwork(
            conditions: NetworkConditions(
                baseDelayMilliseconds: 10, delaySpikeRate: 0.01, delaySpikeMilliseconds: 100),
            seed: 3)
        let arrivals = runNetwork(network, count: 20_000)
        let extras = arrivals.map { $0.delay - 10 * millisecond }
        let spike = 100 * millisecond
        #expect(extras.filter { $0 == spike }.count > 100)
        for (previous, next) in zip(extras, extras.dropFirst()) {
            #expect(next == spike || next == max(0, previous - 20 * millisecond))
        }
        #expect(network.statistics.reordered == 0)
    }

    /// A stepping route delay adds its step during every other interval of the send time; a
    /// drifting one rises to its full swing half way through each period and back to nothing.
    @Test func routeDelayStepsAndDriftsWithTheSendTime() {
        /// Each datagram's delay by its index, 200 datagrams 20 ms apart over `conditions`.
        func delays(_ conditions: NetworkConditions) -> [Int: MediaTime] {
            let arrivals = runNetwork(SimulatedNetwork(conditions: conditions, seed: 1), count: 200)
            return Dictionary(uniqueKeysWithValues: arrivals.map { ($0.index, $0.delay) })
        }
        let steppingDelays = delays(
            NetworkConditions(baseDelayMilliseconds: 10, delayStepMilliseconds: 40, delayStepIntervalSeconds: 1))
        // 50 datagrams a second: the second second's are 40 ms later.
        #expect((0..<50).allSatisfy { steppingDelays[$0] == 10 * millisecond })
        #expect((50..<100).allSatisfy { steppingDelays[$0] == 50 * millisecond })
        #expect((100..<150).allSatisfy { steppingDelays[$0] == 10 * millisecond })

        let driftingDelays = delays(
            NetworkConditions(baseDelayMilliseconds: 10, delayWanderMilliseconds: 60, delayWanderPeriodSeconds: 2))
        #expect(driftingDelays[0] == 10 * millisecond)
        #expect(driftingDelays[50] == 70 * millisecond)
        #expect(driftingDelays[100] == 10 * millisecond)
        let steps = (1..<200).map { abs(driftingDelays[$0]! - driftingDelays[$0 - 1]!) }
        #expect(steps.max()! <= 2 * millisecond, "a drift moves slowly: at most \(steps.max()!) ns per datagram")
    }

    @Test func fullPoolDropsAndCountsThenSlotsAreReused() {
        let network = SimulatedNetwork(conditions: .perfect, seed: 1, capacity: 8, maximumDatagramBytes: 4)
        let datagram: [UInt8] = [1, 2, 3, 4]
        for _ in 0..<20 { datagram.withUnsafeBytes { network.send($0, at: 0) } }
        #expect(network.statistics.poolOverflow == 12)
        #expect(network.inFlight == 8)

        for round in 1...1_000 {
            var received = 0
            network.deliver(until: MediaTime(round) * 20 * millisecond) { bytes, _ in
                #expect(Array(bytes) == datagram)
                received += 1
            }
            #expect(received == (round == 1 ? 8 : 1))
            datagram.withUnsafeBytes { network.send($0, at: MediaTime(round) * 20 * millisecond) }
        }
        #expect(network.capacity == 8)
        #expect(network.statistics.poolOverflow == 12)
        #expect(network.statistics.delivered == 8 + 999)
    }

    @Test func oversizeDatagramsAreDroppedAndCounted() {
        let network = SimulatedNetwork(conditions: .perfect, seed: 1, capacity: 4, maximumDatagramBytes: 4)
        let datagram = [UInt8](repeating: 0, count: 5)
        datagram.withUnsafeBytes { network.send($0, at: 0) }
        #expect(network.statistics.oversize == 1)
        #expect(network.inFlight == 0)
    }

    @Test func impossibleConditionsAreReported() {
        #expect(throws: NetworkConditionsError.self) {
            try NetworkConditions(lossRate: 0.6, meanBurstLength: 1.2).validate()
        }
        #expect(throws: NetworkConditionsError.self) { try NetworkConditions(jitterMilliseconds: -1).validate() }
        #expect(throws: NetworkConditionsError.self) { try NetworkConditions(lossRate: .nan).validate() }
        #expect(throws: Never.self) { try NetworkConditions(lossRate: 0.2, meanBurstLength: 3).validate() }
        // In time, a burst is counted in 10 ms steps: 20 ms is two, which allows at most 2/3 lost.
        #expect(throws: NetworkConditionsError.self) {
            try NetworkConditions(lossRate: 0.7, meanBurstMilliseconds: 20).validate()
        }
        #expect(throws: NetworkConditionsError.self) {
            try NetworkConditions(meanBurstMilliseconds: .infinity).validate()
        }
        #expect(throws: Never.self) { try NetworkConditions(lossRate: 0.1, meanBurstMilliseconds: 60).validate() }
        for bad in [
            NetworkConditions(delayWanderMilliseconds: .nan), NetworkConditions(delayWanderMilliseconds: -1),
            NetworkConditions(delayWanderMilliseconds: 10, delayWanderPeriodSeconds: 0),
            NetworkConditions(delayStepMilliseconds: .infinity),
            NetworkConditions(delayStepMilliseconds: 10, delayStepIntervalSeconds: -3),
        ] {
            #expect(throws: NetworkConditionsError.self) { try bad.validate() }
        }
        #expect(throws: Never.self) {
            try NetworkConditions(delayWanderMilliseconds: 60, delayStepMilliseconds: 40).validate()
        }
    }

    @Test func theManualClockAdvancesOnlyWhenTold() {
        let clock = ManualClock(start: 5)
        clock.advance(by: 20 * millisecond)
        #expect(clock.now == 5 + 20 * millisecond)
        clock.set(7)
        #expect(clock.now == 7)
    }
}
