import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceSimulation

@Suite struct CallSimulationTests {
    static let speech: [Float] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/speech-female.wav").path
        // The fixture is 48 kHz mono already: no conversion needed.
        return (try? WAVAudio(contentsOfFile: path).samples) ?? []
    }()

    private func run(loss: Double, burst: Double = 1, jitter: Double = 0, duplicate: Double = 0, seed: UInt64)
        throws -> CallSimulation.Result
    {
        var conditions = NetworkConditions()
        conditions.lossRate = loss
        conditions.meanBurstLength = burst
        conditions.jitterMilliseconds = jitter
        conditions.duplicateRate = duplicate
        return try CallSimulation.run(
            input: Self.speech, configuration: CallSimulation.Configuration(conditions: conditions, seed: seed))
    }

    /// A clean call conceals nothing: each talk spurt ends with a packet that says so, and the
    /// listener does not take the silence after it for a late packet.
    @Test func aCleanCallConcealsNothing() throws {
        let result = try run(loss: 0, seed: 3)
        #expect(result.send.talkSpurts >= 1)
        #expect(result.receive.packetsLost == 0 && result.receive.packetsLate == 0)
        #expect(result.receive.concealedSamples == 0, "concealed \(result.receive.concealedSamples) samples")
    }

    @Test func theSameSeedGivesTheSameOutput() throws {
        #expect(!Self.speech.isEmpty)
        let first = try run(loss: 0.1, jitter: 20, duplicate: 0.02, seed: 11)
        let second = try run(loss: 0.1, jitter: 20, duplicate: 0.02, seed: 11)
        #expect(first.heard == second.heard)
        #expect(first.receive == second.receive)
        let other = try run(loss: 0.1, jitter: 20, duplicate: 0.02, seed: 12)
        #expect(other.heard != first.heard)
    }

    @Test(arguments: [(0.05, 1.0), (0.1, 1.0), (0.1, 3.0)])
    func theListenersCountsMatchWhatTheNetworkDid(loss: Double, burst: Double) throws {
        let result = try run(loss: loss, burst: burst, duplicate: 0.03, seed: 5)
        let network = result.network
        let statistics = result.receive
        #expect(network.dropped > 0 && network.duplicated > 0)
        // Every delivered datagram was either a first copy or a duplicate.
        #expect(statistics.packetsReceived + statistics.packetsDuplicated == network.delivered)
        #expect(statistics.packetsDuplicated == network.duplicated)
        // Every dropped packet was repaired or counted lost; none arrived late without jitter.
        #expect(statistics.packetsLate == 0)
        #expect(
            statistics.recoveredByRedundancy + statistics.recoveredByFEC + statistics.packetsLost == network.dropped)
    }

    /// A clean call's listener reports once per interval; under loss the sender hears of the
    /// first bursts early, before its copies ride along, and then on the interval again.
    @Test func lossTheSenderDoesNotCoverIsReportedEarly() throws {
        let clean = try run(loss: 0, seed: 3)
        let seconds = Double(clean.heard.count) / 48_000
        #expect(clean.send.reportsApplied == Int(seconds / 0.5))
        let lossy = try run(loss: 0.1, burst: 3, seed: 3)
        #expect(lossy.send.reportsApplied > clean.send.reportsApplied)
        #expect(lossy.send.reportsApplied < 2 * clean.send.reportsApplied)
    }
}
