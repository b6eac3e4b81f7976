import Testing
import VoiceCore
import VoiceEngine
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
        #expect(bob.engine.counters.malformedDatagrams == before.malformedDatagrams + 3)

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
        // The envelope's clear header says "sealed"; the voice packet header inside does not show.
        #expect(datagram.bytes[0] == 0x13)
        #expect(datagram.bytes[21] != 0x11)
    }
}

@Suite struct RekeyTests {
    @Test func aPlayerLeavingRekeysTheOthersWithoutAGapInTheirVoice() throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let channels = try players.map { try #require($0.match).voiceChat(named: "all") }
        for channel in channels { try channel.start() }
        try channels[0].setActive(true)
        world.run(seconds: 3, players)
        let before = try #require(players[1].engine.statistics().first { $0.participant == "alice" }?.streams["all"])
        let sentBefore = players[0].engine.counters.datagramsSent["direct"] ?? 0

        try #require(players[2].match).disconnect()
        world.run(seconds: 4, Array(players[0...1]))

        let after = try #require(players[1].engine.statistics().first { $0.participant == "alice" }?.streams["all"])
        #expect(after.receive.packetsReceived > before.receive.packetsReceived + 150)
        #expect(after.receive.packetsLost == before.receive.packetsLost)
        #expect(after.receive.concealedSamples == before.receive.concealedSamples)
        #expect((players[0].engine.counters.datagramsSent["direct"] ?? 0) > sentBefore)
        #expect(players[1].engine.counters.unopenedDatagrams == 0)
        #expect(players[1].heardLevel(of: players[0].frequency, lastSeconds: 1) > 0.05)
    }
}
