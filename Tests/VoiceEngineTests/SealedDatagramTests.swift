import Testing
import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport
import VoiceWire

@Suite struct SealedDatagramTests {
    private func liveCall(_ world: SimulatedWorld) throws -> (SimulatedParticipant, SimulatedParticipant) {
        let setup = try world.acceptedCall()
        world.run(seconds: 2, [setup.alice, setup.bob])
        return (setup.alice, setup.bob)
    }

    /// The newest voice envelope alice sent bob: still on its way when the world stops.
    private func voiceDatagram(_ world: SimulatedWorld, from alice: SimulatedParticipant) throws
        -> SimulatedWorld.Datagram
    {
        try #require(
            world.captured.withLock { $0 }.last { datagram in
                datagram.from == alice.network.address && datagram.bytes.count > 21 && datagram.bytes[1] == 1
            })
    }

    @Test func forgedReplayedAndTruncatedDatagramsAreDroppedAndCounted() throws {
        let world = SimulatedWorld()
        let (alice, bob) = try liveCall(world)
        let original = try voiceDatagram(world, from: alice)
        let before = bob.engine.counters

        // Forged before the real one arrives: one bit flipped in the header, the ciphertext, the tag.
        for index in [2, 30, original.bytes.count - 1] {
            var forged = original.bytes
            forged[index] ^= 0x10
            bob.engine.receiveDatagram(forged, from: original.from)
        }
        #expect(bob.engine.counters.unopenedDatagrams == before.unopenedDatagrams + 3)

        // The forgeries did not use up its counter: the real one still opens, and a copy of it is a replay.
        bob.engine.receiveDatagram(original.bytes, from: original.from)
        #expect(bob.engine.counters.unopenedDatagrams == before.unopenedDatagrams + 3)
        #expect(bob.engine.counters.replayedDatagrams == before.replayedDatagrams)
        bob.engine.receiveDatagram(original.bytes, from: original.from)
        #expect(bob.engine.counters.replayedDatagrams == before.replayedDatagrams + 1)

        // Truncated below a header and tag, and not a sealed envelope at all.
        bob.engine.receiveDatagram(Array(original.bytes.prefix(30)), from: original.from)
        bob.engine.receiveDatagram([0x11, 0, 0], from: original.from)
        bob.engine.receiveDatagram([], from: original.from)
        // Larger than any envelope: refused before the engine would have to hold it.
        bob.engine.receiveDatagram(original.bytes + [UInt8](repeating: 0, count: 1_500), from: original.from)
        #expect(bob.engine.counters.malformedDatagrams == before.malformedDatagrams + 4)

        // A stranger's envelope (right format, unknown sender) does not open either.
        var stranger = original.bytes
        stranger[4] ^= 0xFF
        bob.engine.receiveDatagram(stranger, from: original.from)
        #expect(bob.engine.counters.unopenedDatagrams == before.unopenedDatagrams + 4)

        // None of it disturbed the call.
        world.run(seconds: 1, [alice, bob])
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 0.8) > 0.05)
    }

    @Test func voiceIsNotReadableOnTheWire() throws {
        let world = SimulatedWorld()
        let (alice, _) = try liveCall(world)
        let datagram = try voiceDatagram(world, from: alice)
        // The envelope's clear header says "sealed"; the voice packet header inside does not show:
        // unencrypted, the body would start with the voice type (0x11) and carry at its bytes 4-7
        // the sender's media ID, which the clear header carries at the same offset.
        #expect(datagram.bytes[0] == 0x13)
        let body = SealedEnvelopeHeader.encodedBytes
        let clearVoiceHeader: [UInt8] = [0x11] + datagram.bytes[4..<8]
        let sealedBytes: [UInt8] = [datagram.bytes[body]] + datagram.bytes[(body + 4)..<(body + 8)]
        #expect(sealedBytes != clearVoiceHeader)
    }
}
