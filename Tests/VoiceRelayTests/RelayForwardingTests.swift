import Testing
import VoiceCore
import VoiceRelay
import VoiceRelayClient
import VoiceWire

@Suite(.serialized) struct RelayForwardingTests {
    let harness = RelayHarness()

    @Test func voiceReachesOnlyMembersWhoStartedTheChannel() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.join("alice", relay: relay, channels: [1])
        let bob = try await harness.join("bob", relay: relay, channels: [1])
        let carol = try await harness.join("carol", relay: relay, channels: [2])
        let dave = try await harness.join("dave", relay: relay, channels: [1, 2])
        for peer in [alice, bob, carol, dave] { try await peer.waitUntilJoined() }

        #expect(alice.say(channel: 1))
        #expect(carol.say(channel: 2))
        try await eventually("bob and dave hear alice, dave hears carol") {
            bob.heardFrom == [alice.mediaID] && dave.heardFrom == [alice.mediaID, carol.mediaID]
        }
        try await alice.barrier(to: carol)
        try await carol.barrier(to: bob)
        try await carol.barrier(to: alice)
        #expect(bob.heardFrom == [alice.mediaID])
        #expect(carol.heardFrom.isEmpty)
        #expect(alice.heardFrom == [])

        // Channel 0 (game data of the match) reaches everyone; a destination reaches one member.
        bob.say(channel: 0, content: .gameData)
        dave.say(channel: 0, destination: carol.mediaID, content: .receiverReport)
        try await eventually("game data reaches all, the report only carol") {
            alice.heardEnvelopes.contains { $0.content == .gameData }
                && carol.heardEnvelopes.contains { $0.content == .receiverReport }
        }
        try await dave.barrier(to: alice)
        try await dave.barrier(to: bob)
        #expect(!alice.heardEnvelopes.contains { $0.content == .receiverReport })
        #expect(!bob.heardEnvelopes.contains { $0.content == .receiverReport })
        await harness.close(alice, bob, carol, dave)
        await relay.shutdown()
    }

    @Test func listenerMuteAndServerMuteDropTheSendersVoice() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.join("alice", relay: relay)
        let bob = try await harness.join("bob", relay: relay, muted: ["alice"])
        let carol = try await harness.join("carol", relay: relay)
        for peer in [alice, bob, carol] { try await peer.waitUntilJoined() }

        alice.say()
        try await eventually("carol hears alice") { carol.heardFrom == [alice.mediaID] }
        try await alice.barrier(to: bob)
        #expect(bob.heardFrom.isEmpty)

        // Once bob's marker is through, so is the unmute he sent before it.
        bob.client.unmute(alice.mediaID)
        try await bob.barrier(to: alice)
        alice.say()
        try await eventually("bob hears alice after unmuting") { bob.heardFrom == [alice.mediaID] }

        try await relay.admin.setServerMute(true, participant: "alice", match: RelayHarness.match)
        try await eventually("alice is told") { alice.receivedEvents.contains(.serverMute(true)) }
        bob.forget()
        carol.forget()
        alice.say()
        bob.say()
        try await eventually("carol hears bob") { carol.heardFrom.contains(bob.mediaID) }
        try await alice.barrier(to: carol)
        try await alice.barrier(to: bob)
        #expect(carol.heardFrom == [bob.mediaID])
        #expect(bob.heardFrom.isEmpty)
        let statistics = try await relay.admin.statistics()
        #expect(statistics.counters.drops(.serverMuted) == 1)

        // Alice's app reconnects: the membership stays muted, and her new client is told so.
        let aliceAgain = try await harness.join("alice", relay: relay)
        try await aliceAgain.waitUntilJoined()
        try await eventually("alice's new client is told") { aliceAgain.receivedEvents.contains(.serverMute(true)) }
        await harness.close(alice, aliceAgain, bob, carol)
        await relay.shutdown()
    }

    @Test func movedMemberHearsItsNewChannelOnly() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.join("alice", relay: relay, channels: [1])
        let bob = try await harness.join("bob", relay: relay, channels: [2])
        for peer in [alice, bob] { try await peer.waitUntilJoined() }

        try await relay.admin.move(participant: "bob", match: RelayHarness.match, toChannel: 1)
        try await eventually("bob is told") { bob.receivedEvents.contains(.moved(channel: 1)) }
        alice.say(channel: 1)
        try await eventually("bob hears channel 1") { bob.heardFrom == [alice.mediaID] }
        let bobInfo = try await relay.admin.participants(match: RelayHarness.match).first { $0.participant == "bob" }
        #expect(bobInfo?.channels == [1])
        await harness.close(alice, bob)
        await relay.shutdown()
    }

    @Test func kickedMemberIsToldAndNoLongerHears() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.join("alice", relay: relay)
        let bob = try await harness.join("bob", relay: relay)
        for peer in [alice, bob] { try await peer.waitUntilJoined() }

        try await relay.admin.kick(participant: "bob", match: RelayHarness.match)
        try await eventually("bob is kicked") { bob.client.state == .kicked(.admin) }
        alice.say()
        // Bob is no member any more: the relay drops alice's marker to him, after her voice.
        alice.sayMarker(to: bob.mediaID)
        try await eventually("the relay handled alice's marker") {
            try await relay.admin.statistics().counters.drops(.unknownDestination) == 1
        }
        #expect(bob.heardFrom.isEmpty)
        #expect(try await relay.admin.matches() == [RelayMatchInfo(match: RelayHarness.match, participants: ["alice"])])
        await #expect(throws: RelayAdminError.unknownParticipant(match: RelayHarness.match, participant: "bob")) {
            try await relay.admin.kick(participant: "bob", match: RelayHarness.match)
        }
        await harness.close(alice, bob)
        await relay.shutdown()
    }

    @Test func expiredForgedAndMismatchedTokensAreRefusedAndCounted() async throws {
        let relay = try await harness.startRelay()
        let expired = try await harness.join("eve", relay: relay, token: try harness.token("eve", expiresIn: -60))
        let forged = try RelayToken.sign(
            match: RelayHarness.match, participant: "mallory", expiry: UInt64.max,
            secret: RelaySecret.random())
        let forger = try await harness.join("mallory", relay: relay, token: forged.text)
        let impostor = try await harness.join("trudy", relay: relay, token: try harness.token("alice"))
        try await eventually("all three are refused") {
            expired.client.state == .refused(.expired) && forger.client.state == .refused(.badSignature)
                && impostor.client.state == .refused(.participantMismatch)
        }
        let statistics = try await relay.admin.statistics()
        #expect(statistics.refusals[.expired] ?? 0 >= 1)
        #expect(statistics.refusals[.badSignature] ?? 0 >= 1)
        #expect(statistics.participants == 0)
        await harness.close(expired, forger, impostor)
        await relay.shutdown()
    }

    @Test func spoofedSenderIsDropped() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.join("alice", relay: relay)
        let bob = try await harness.join("bob", relay: relay)
        for peer in [alice, bob] { try await peer.waitUntilJoined() }
        alice.say(sender: ParticipantID("carol").mediaID)
        alice.say()
        try await eventually("bob hears alice's genuine envelope") { bob.heardEnvelopes.count == 1 }
        try await alice.barrier(to: bob)
        #expect(bob.heardFrom == [alice.mediaID])
        #expect(try await relay.admin.statistics().counters.drops(.spoofedSender) == 1)
        await harness.close(alice, bob)
        await relay.shutdown()
    }

    @Test func tcpMemberAndUDPMembersHearEachOther() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.join("alice", relay: relay, transport: .udp)
        let tina = try await harness.join("tina", relay: relay, transport: .tcp)
        let bob = try await harness.join("bob", relay: relay, transport: .udp)
        for peer in [alice, tina, bob] { try await peer.waitUntilJoined() }
        alice.say()
        tina.say()
        try await eventually("everyone hears the other two") {
            tina.heardFrom == [alice.mediaID] && alice.heardFrom == [tina.mediaID]
                && bob.heardFrom == [alice.mediaID, tina.mediaID]
        }
        let info = try await relay.admin.participants(match: RelayHarness.match).first { $0.participant == "tina" }
        #expect(info?.overTCP == true && info?.overUDP == false)
        await harness.close(alice, tina, bob)
        await relay.shutdown()
    }

    @Test func clientsRejoinAfterRelayRestartAndTrafficResumes() async throws {
        let first = try await harness.startRelay()
        let port = try #require(first.localPort)
        let alice = try await harness.join("alice", relay: first, transport: .udp)
        let tina = try await harness.join("tina", relay: first, transport: .tcp)
        for peer in [alice, tina] { try await peer.waitUntilJoined() }
        try await first.admin.setServerMute(true, participant: "alice", match: RelayHarness.match)
        try await eventually("alice is told she is muted") { alice.receivedEvents.contains(.serverMute(true)) }
        await first.shutdown()
        try await eventually("both notice") { !alice.client.state.isJoined && !tina.client.state.isJoined }

        // The new relay knows of no mute, and says so at the join: alice hears it lifted.
        let second = try await harness.startRelay(port: port)
        try await eventually("both rejoin", within: 5) { alice.client.state.isJoined && tina.client.state.isJoined }
        try await eventually("alice is told the mute is gone") { alice.receivedEvents.last == .serverMute(false) }
        #expect(tina.receivedEvents.allSatisfy { if case .serverMute = $0 { false } else { true } })
        alice.say()
        try await eventually("tina hears alice through the new relay") { tina.heardFrom == [alice.mediaID] }
        await harness.close(alice, tina)
        await second.shutdown()
    }

    @Test func floodingMemberIsRateLimitedWithoutStarvingOthers() async throws {
        var limits = RelayLimits()
        limits.packetsPerSecond = 50
        limits.packetBurst = 10
        let relay = try await harness.startRelay(limits: limits)
        let flooder = try await harness.join("flooder", relay: relay)
        let alice = try await harness.join("alice", relay: relay)
        let bob = try await harness.join("bob", relay: relay)
        for peer in [flooder, alice, bob] { try await peer.waitUntilJoined() }

        for _ in 0..<200 { flooder.say() }
        alice.say()
        try await eventually("bob hears alice despite the flood") { bob.heardFrom.contains(alice.mediaID) }
        // Every one of the flood's envelopes was either dropped or has reached bob.
        try await eventually("the relay handled the whole flood") {
            let dropped = try await relay.admin.statistics().counters.drops(.rateLimited)
            return dropped + bob.heardEnvelopes.filter { $0.sender == flooder.mediaID }.count == 200
        }
        let fromFlooder = bob.heardEnvelopes.filter { $0.sender == flooder.mediaID }.count
        #expect(fromFlooder >= 10 && fromFlooder < 40)
        let statistics = try await relay.admin.statistics()
        #expect(statistics.counters.drops(.rateLimited) >= 160)
        await harness.close(flooder, alice, bob)
        await relay.shutdown()
    }
}
