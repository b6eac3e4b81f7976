import Testing
import VoiceRelay
import VoiceRelayClient
import VoiceWire

@Suite(.serialized) struct RelaySignallingTests {
    let harness = RelayHarness()

    @Test func rosterOnJoinThenMembersJoiningAndLeaving() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.attach("alice", relay: relay)
        try await alice.waitUntilJoined()
        #expect(alice.receivedEvents == [.joined(members: [])])

        let bob = try await harness.attach("bob", relay: relay)
        try await bob.waitUntilJoined()
        let carol = try await harness.attach("carol", relay: relay)
        try await carol.waitUntilJoined()
        // Each member hears of the others on its own connection, in no set order between them.
        try await eventually("alice hears of bob and carol, and bob of carol") {
            alice.client.members == ["bob", "carol"] && bob.client.members == ["alice", "carol"]
        }
        #expect(alice.receivedEvents == [.joined(members: []), .memberJoined("bob"), .memberJoined("carol")])
        #expect(bob.receivedEvents == [.joined(members: ["alice"]), .memberJoined("carol")])
        #expect(carol.receivedEvents == [.joined(members: ["alice", "bob"])])
        #expect(try await relay.admin.signallingMembers(match: RelayHarness.match) == ["alice", "bob", "carol"])

        await carol.client.close()
        try await eventually("alice and bob hear carol left") {
            alice.receivedEvents.last == .memberLeft("carol") && bob.receivedEvents.last == .memberLeft("carol")
        }
        #expect(alice.client.members == ["bob"])
        #expect(try await relay.admin.signallingMembers(match: RelayHarness.match) == ["alice", "bob"])
        let statistics = try await relay.admin.statistics()
        #expect(statistics.signallingParticipants == 2)
        // Signalling members are not media members.
        #expect(statistics.participants == 0)
        await harness.close(alice, bob)
        await relay.shutdown()
    }

    @Test func signalsReachOnlyTheirDestinationInOrder() async throws {
        let relay = try await harness.startRelay()
        let alice = try await harness.attach("alice", relay: relay)
        let bob = try await harness.attach("bob", relay: relay)
        let carol = try await harness.attach("carol", relay: relay)
        for peer in [alice, bob, carol] { try await peer.waitUntilJoined() }
        try await eventually("alice knows both") { alice.client.members == ["bob", "carol"] }

        for index in 0..<50 { #expect(alice.client.send([UInt8(index), 1, 2, 3], to: "bob")) }
        alice.client.send(Array("for carol".utf8), to: "carol")
        try await eventually("bob gets all fifty, carol hers") { bob.signals.count == 50 && carol.signals.count == 1 }
        #expect(bob.signals.map(\.payload.first) == (0..<50).map { UInt8($0) })
        #expect(bob.signals.allSatisfy { $0.from == "alice" })
        #expect(carol.signals.first?.payload == Array("for carol".utf8))
        // Carol's came last on alice's connection, so the relay has handled all of alice's signals:
        // it forwarded these 51 and no other, so none is on its way to alice.
        let statistics = try await relay.admin.statistics()
        #expect(statistics.counters.signalsForwarded == 51)
        #expect(alice.signals.isEmpty && bob.signals.count == 50 && carol.signals.count == 1)
        await harness.close(alice, bob, carol)
        await relay.shutdown()
    }

    @Test func signalsToAbsentMembersWaitThenAreDropped() async throws {
        let relay = try await harness.startRelay()
        var timing = SignallingPeer.fastTiming
        timing.holdTime = .milliseconds(400)
        let alice = try await harness.attach("alice", relay: relay, timing: timing)
        try await alice.waitUntilJoined()
        // Bob is not there yet: the signal waits for him.
        alice.client.send([1], to: "bob")
        let bob = try await harness.attach("bob", relay: relay)
        try await eventually("bob gets the signal sent before he arrived") { bob.signals.count == 1 }
        // Nobody called zed ever comes: the signal is dropped once it has waited its hold time.
        alice.client.send([2], to: "zed")
        try await eventually("the signal to zed is dropped") { alice.client.droppedSignals == 1 }
        #expect(!alice.client.send([UInt8](repeating: 0, count: RelayMessage.maximumSignalBytes + 1), to: "bob"))
        #expect(!alice.client.send([1], to: ""))
        await harness.close(alice, bob)
        await relay.shutdown()
    }

    /// A connection that has not joined and announces a frame longer than any join is closed at
    /// the header, not kept holding up to 64 KB until the hello deadline (5 s).
    @Test func aHeaderLongerThanAJoinClosesAConnectionThatHasNotJoined() async throws {
        let relay = try await harness.startRelay()
        let port = try #require(relay.localPort)
        let raw = try await RawRelayConnection(port: port)
        try await raw.send(unframed: [0xFF, 0xFF, 1, 2, 3])
        try await eventually("closed at the header", within: 2) { raw.isClosed }
        // A join-sized frame is read as usual: this one is a join, refused for its token.
        let player = try await RawRelayConnection(port: port)
        try await player.send(.signalJoin(token: "not a token", participant: "mallory"))
        try await eventually("the join is answered") { !player.messages.isEmpty }
        #expect(!player.isClosed)
        await player.close()
        await relay.shutdown()
    }

    @Test func relayDropsAndCountsUnknownDestinationsOversizeAndStraySignals() async throws {
        var limits = RelayLimits()
        limits.maximumSignalBytes = 1000
        let relay = try await harness.startRelay(limits: limits)
        let port = try #require(relay.localPort)
        let bob = try await harness.attach("bob", relay: relay)
        try await bob.waitUntilJoined()
        let raw = try await RawRelayConnection(port: port)
        try await raw.send(.sendSignal(to: "bob", payload: [1]))
        try await eventually("a signal before joining is refused") { raw.messages == [.refused(.notJoined)] }

        try await raw.send(.signalJoin(token: try harness.token("mallory"), participant: "mallory"))
        try await eventually("mallory attaches") { raw.messages.last == .signalJoined(members: ["bob"]) }
        try await raw.send(.sendSignal(to: "nobody", payload: [1]))
        try await raw.send(.sendSignal(to: "mallory", payload: [1]))
        try await raw.send(.sendSignal(to: "bob", payload: [UInt8](repeating: 7, count: 1001)))
        try await raw.send(.signal(from: "alice", payload: [1]))
        // Declares 65 001 payload bytes: more than any signal may carry.
        try await raw.send(bytes: [0x14, 18, 0, 3, 0x62, 0x6F, 0x62, 0xFD, 0xE9])
        try await raw.send(.sendSignal(to: "bob", payload: [UInt8](repeating: 8, count: 1000)))
        // The relay handles one connection's frames in order and bob's arrive in order: had it
        // forwarded an earlier one, bob would have had it before the last.
        try await eventually("bob gets the last signal") { bob.signals.count >= 1 }
        #expect(bob.signals.map(\.payload) == [[UInt8](repeating: 8, count: 1000)])
        #expect(bob.signals.first?.from == "mallory")
        // A media join on the signalling connection is refused: media needs its own connection.
        try await raw.send(
            .join(RelayJoin(token: try harness.token("mallory"), participant: "mallory", channels: [], muted: [])))
        try await eventually("the media join is refused") { raw.messages.last == .refused(.wrongConnection) }

        let counters = try await relay.admin.statistics().counters
        #expect(counters.drops(.unknownDestination) == 2)
        #expect(counters.drops(.tooLarge) == 2)
        #expect(counters.drops(.malformed) == 1)
        #expect(counters.drops(.notJoined) == 1)
        #expect(counters.signalsForwarded == 1)
        await raw.close()
        await harness.close(bob)
        await relay.shutdown()
    }

    @Test func badExpiredAndMismatchedTokensAreRefusedAndCounted() async throws {
        let relay = try await harness.startRelay()
        let expired = try await harness.attach("eve", relay: relay, token: try harness.token("eve", expiresIn: -60))
        let forged = try RelayToken.sign(
            match: RelayHarness.match, participant: "mallory", expiry: UInt64.max, secret: RelaySecret.random())
        let forger = try await harness.attach("mallory", relay: relay, token: forged.text)
        let impostor = try await harness.attach("trudy", relay: relay, token: try harness.token("alice"))
        try await eventually("all three are refused") {
            expired.client.state == .refused(.expired) && forger.client.state == .refused(.badSignature)
                && impostor.client.state == .refused(.participantMismatch)
        }
        #expect(expired.receivedEvents == [.refused(.expired)])
        #expect(forger.receivedEvents == [.refused(.badSignature)])
        #expect(!expired.client.send([1], to: "alice"))
        let statistics = try await relay.admin.statistics()
        #expect(statistics.refusals[.expired] == 1)
        #expect(statistics.refusals[.badSignature] == 1)
        #expect(statistics.refusals[.participantMismatch] == 1)
        #expect(statistics.signallingParticipants == 0)
        await harness.close(expired, forger, impostor)
        await relay.shutdown()
    }

    @Test func newerConnectionReplacesTheOldOneWithoutTheOthersNoticing() async throws {
        let relay = try await harness.startRelay()
        // Alice first, so that bob's roster names her from the start.
        let first = try await harness.attach("alice", relay: relay)
        try await first.waitUntilJoined()
        let bob = try await harness.attach("bob", relay: relay)
        try await bob.waitUntilJoined()
        try await eventually("bob knows alice") { bob.client.members == ["alice"] }

        let second = try await harness.attach("alice", relay: relay)
        try await second.waitUntilJoined()
        try await eventually("the first connection is replaced") { first.client.state == .kicked(.replaced) }
        #expect(first.receivedEvents.last == .kicked(.replaced))
        #expect(second.receivedEvents == [.joined(members: ["bob"])])
        bob.client.send([42], to: "alice")
        try await eventually("the newer connection gets bob's signal") { second.signals.count == 1 }
        // The relay forwarded bob's signal once, to the newer connection, so none is on its way to the first.
        #expect(try await relay.admin.statistics().counters.signalsForwarded == 1)
        #expect(first.signals.isEmpty)
        #expect(bob.receivedEvents == [.joined(members: ["alice"])])
        #expect(try await relay.admin.signallingMembers(match: RelayHarness.match) == ["alice", "bob"])
        await harness.close(first, second, bob)
        await relay.shutdown()
    }

    @Test func afterARelayRestartTheRosterIsResentAndChangesAreReported() async throws {
        let first = try await harness.startRelay()
        let port = try #require(first.localPort)
        let alice = try await harness.attach("alice", relay: first)
        let bob = try await harness.attach("bob", relay: first)
        for peer in [alice, bob] { try await peer.waitUntilJoined() }
        try await eventually("alice knows bob") { alice.client.members == ["bob"] }

        await first.shutdown()
        try await eventually("alice notices") { alice.client.state == .lost }
        #expect(alice.receivedEvents.last == .lost)
        // Bob goes away while the relay is down; carol arrives at the new relay.
        await bob.client.close()
        let second = try await harness.startRelay(port: port)
        let carol = try await harness.attach("carol", relay: second)
        try await carol.waitUntilJoined()
        try await eventually("alice rejoins and learns who came and went") {
            alice.client.state == .joined && alice.client.members == ["carol"]
        }
        let afterLoss = alice.receivedEvents.drop { $0 != .lost }.dropFirst()
        // The rejoin is said first, then what changed meanwhile.
        #expect(afterLoss.first == .rejoined)
        #expect(
            Array(afterLoss.dropFirst()).sorted { "\($0)" < "\($1)" } == [.memberJoined("carol"), .memberLeft("bob")])
        #expect(alice.receivedEvents.filter { if case .joined = $0 { true } else { false } }.count == 1)
        alice.client.send([9], to: "carol")
        try await eventually("carol hears alice through the new relay") { carol.signals.first?.from == "alice" }
        await harness.close(alice, carol)
        await second.shutdown()
    }

    @Test func signallingAndMediaMembershipsAreIndependent() async throws {
        let relay = try await harness.startRelay()
        let aliceMedia = try await harness.join("alice", relay: relay)
        let bobMedia = try await harness.join("bob", relay: relay)
        let aliceSignalling = try await harness.attach("alice", relay: relay)
        let bobSignalling = try await harness.attach("bob", relay: relay)
        for peer in [aliceMedia, bobMedia] { try await peer.waitUntilJoined() }
        for peer in [aliceSignalling, bobSignalling] { try await peer.waitUntilJoined() }
        try await eventually("bob's signalling knows alice") { bobSignalling.client.members == ["alice"] }

        // Alice's signalling goes: her media stays, and bob still hears her voice.
        await aliceSignalling.client.close()
        try await eventually("bob hears alice's signalling left") { bobSignalling.client.members.isEmpty }
        #expect(
            try await relay.admin.participants(match: RelayHarness.match).map(\.participant).sorted() == [
                "alice", "bob",
            ])
        aliceMedia.say()
        try await eventually("bob hears alice's voice") { bobMedia.heardFrom == [aliceMedia.mediaID] }
        #expect(aliceMedia.client.state.isJoined)

        // Bob's media goes: his signalling stays.
        let again = try await harness.attach("alice", relay: relay)
        try await again.waitUntilJoined()
        await bobMedia.client.close()
        try await eventually("bob's media membership ends") {
            try await relay.admin.participants(match: RelayHarness.match).map(\.participant) == ["alice"]
        }
        again.client.send([5], to: "bob")
        try await eventually("bob's signalling still gets signals") { bobSignalling.signals.count == 1 }
        #expect(bobSignalling.client.state == .joined)
        #expect(try await relay.admin.signallingMembers(match: RelayHarness.match) == ["alice", "bob"])

        // The game server's kick removes both.
        try await relay.admin.kick(participant: "alice", match: RelayHarness.match)
        try await eventually("alice is kicked from both") {
            again.client.state == .kicked(.admin) && aliceMedia.client.state == .kicked(.admin)
        }
        #expect(try await relay.admin.signallingMembers(match: RelayHarness.match) == ["bob"])
        await harness.close(again, bobSignalling)
        await harness.close(aliceMedia)
        await relay.shutdown()
    }
}
