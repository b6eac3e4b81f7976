import Logging
import NIOCore
import Testing
import VoiceCore
import VoiceWire

@testable import VoiceRelay

/// A match spanning relays, as their state machines see it: a full part spills its next player to
/// another relay, the relays link up and tell each other of their players, voice crosses once to
/// each relay where someone may hear it, and what no relay of the cluster sent is dropped. The
/// relays' messages to each other are carried between the states here; no socket, no clock.
@Suite struct RelaySpanStateTests {
    static let match = RelayStateTests.match
    let secret = RelaySecret.random()

    /// Relays of one cluster, each with the datagrams its players were sent.
    final class Cluster {
        var relays: [String: RelayState] = [:]
        /// Each relay's address, by node.
        var addresses: [String: SocketAddress] = [:]
        /// Copies of envelopes each player was sent, by UDP port.
        var received: [Int: Int] = [:]
        /// Relay messages each player was sent, by UDP port.
        var messages: [Int: [RelayMessage]] = [:]

        /// Carries out what every relay decided, handing their messages to each other, until none
        /// has anything left to say.
        func settle(now: UInt64) {
            var busy = true
            while busy {
                busy = false
                for (node, state) in relays.sorted(by: { $0.key < $1.key }) where !state.actions.isEmpty {
                    busy = true
                    let decisions = RelayStateTests.take(state)
                    let source = addresses[node]!
                    for action in decisions.actions {
                        switch action {
                        case .forward(_, let copies):
                            for copy in copies {
                                received[decisions.destinations[copy].socketAddress.port ?? -1, default: 0] += 1
                            }
                        case .datagram(let buffer, let address):
                            if let peer = addresses.first(where: { $0.value == address })?.key {
                                relays[peer]?.received(buffer, from: .udp(source), now: now)
                            } else if let message = try? RelayMessage(parsing: Array(buffer.readableBytesView)) {
                                messages[address.port ?? -1, default: []].append(message)
                            } else {
                                received[address.port ?? -1, default: 0] += 1
                            }
                        default: continue
                        }
                    }
                }
            }
        }
    }

    /// Relays named `nodes`, each taking `limit` players of a match, as one cluster; each
    /// advertises its address, or a name (`byName`).
    func cluster(_ nodes: [String], limit: Int = 64, byName: Bool = false) -> Cluster {
        let cluster = Cluster()
        for (index, node) in nodes.enumerated() {
            let address = try! SocketAddress(ipAddress: "10.9.0.\(index + 1)", port: 7700)
            var configuration = RelayConfiguration(secret: secret)
            configuration.unixTime = { 1_000_000 }
            configuration.limits.maximumMembersPerMatch = limit
            configuration.clusterNode = RelayNode(
                node: node, address: byName ? "\(node).relays.invalid:7700" : "10.9.0.\(index + 1):7700")
            let state = RelayState(
                configuration: configuration,
                logger: Logger(label: "voicechat.relay.span-test", factory: { _ in SwiftLogNoOpLogHandler() }))
            state.placement.isClustered = true
            cluster.relays[node] = state
            cluster.addresses[node] = address
        }
        return cluster
    }

    /// A player's address: its port names it in `Cluster.received`.
    static func player(_ port: Int) -> SocketAddress { try! SocketAddress(ipAddress: "10.0.0.1", port: port) }

    func join(
        _ participant: String, port: Int, to relay: RelayState, channels: [ChannelNumber] = [1], now: UInt64 = 0
    ) throws {
        let token = try RelayToken.sign(match: Self.match, participant: participant, expiry: 2_000_000, secret: secret)
        let join = RelayMessage.join(
            RelayJoin(token: token.text, participant: participant, channels: channels, muted: []))
        relay.received(ByteBuffer(bytes: try join.serialized()), from: .udp(Self.player(port)), now: now)
    }

    func send(_ message: RelayMessage, port: Int, to relay: RelayState, now: UInt64 = 0) throws {
        relay.received(ByteBuffer(bytes: try message.serialized()), from: .udp(Self.player(port)), now: now)
    }

    func voice(from participant: String, port: Int, to relay: RelayState, now: UInt64 = 0) {
        relay.received(RelayStateTests.envelope(from: participant), from: .udp(Self.player(port)), now: now)
    }

    /// alice and bob on a, whose part is full at two, carol spilled to b.
    func spilledMatch() throws -> Cluster {
        let cluster = cluster(["a", "b"], limit: 2)
        let (a, b) = (cluster.relays["a"]!, cluster.relays["b"]!)
        a.placement.home = [Self.match]
        try join("alice", port: 1, to: a)
        try join("bob", port: 2, to: a)
        cluster.settle(now: 0)
        try join("carol", port: 3, to: a)
        #expect(a.actions.contains { if case .spill(Self.match) = $0 { true } else { false } })
        cluster.settle(now: 0)
        #expect(cluster.messages[3] == nil, "carol waits for the cluster's answer")
        a.spilled(Self.match, .elsewhere(node: "b", address: "10.9.0.2:7700"), now: 1)
        cluster.settle(now: 1)
        #expect(cluster.messages[3] == [.redirect(address: "10.9.0.2:7700")])
        try join("carol", port: 3, to: b, now: 2)
        cluster.settle(now: 2)
        #expect(cluster.messages[3]?.contains(.joined(mediaID: RelayStateTests.mediaID("carol"))) == true)
        cluster.received = [:]
        return cluster
    }

    @Test func aFullPartSpillsItsNextPlayerAndVoiceCrossesOnceEachWay() throws {
        let cluster = try spilledMatch()
        let (a, b) = (cluster.relays["a"]!, cluster.relays["b"]!)
        #expect(a.participantCount == 2 && b.participantCount == 1)
        #expect(a.matches[Self.match]?.remote.map(\.participant) == ["carol"])
        #expect(b.matches[Self.match]?.remote.map(\.participant).sorted() == ["alice", "bob"])

        voice(from: "alice", port: 1, to: a, now: 3)
        cluster.settle(now: 3)
        #expect(cluster.received == [2: 1, 3: 1])
        #expect(a.counters.peerVoiceSent == 1 && b.counters.peerVoiceReceived == 1)

        cluster.received = [:]
        voice(from: "carol", port: 3, to: b, now: 4)
        cluster.settle(now: 4)
        #expect(cluster.received == [1: 1, 2: 1])
        #expect(b.counters.peerVoiceSent == 1, "one copy for both of a's players")
    }

    @Test func aPlayerLeavingIsForgottenOnTheOtherRelayAndItsFullPartTakesPlayersAgain() throws {
        let cluster = try spilledMatch()
        let (a, b) = (cluster.relays["a"]!, cluster.relays["b"]!)
        try send(.leave, port: 2, to: a, now: 5)
        #expect(a.actions.contains { if case .partHasRoom(Self.match) = $0 { true } else { false } })
        cluster.settle(now: 5)
        #expect(b.matches[Self.match]?.remote.map(\.participant) == ["alice"])
        voice(from: "carol", port: 3, to: b, now: 6)
        cluster.settle(now: 6)
        #expect(cluster.received == [1: 1])
    }

    @Test func voiceCrossesOnlyToRelaysWhereSomeoneIsInRange() throws {
        let cluster = cluster(["a", "b", "c"])
        let (a, b, c) = (cluster.relays["a"]!, cluster.relays["b"]!, cluster.relays["c"]!)
        for (state, player, port) in [(a, "alice", 1), (b, "bob", 2), (b, "bert", 4), (c, "carol", 3)] {
            state.spans.parts.insert(Self.match)
            try join(player, port: port, to: state)
        }
        cluster.settle(now: 0)
        for (node, state) in cluster.relays {
            _ = state.spansListed(
                [
                    Self.match: ["a", "b", "c"].map {
                        RelayNode(node: $0, address: "10.9.0.\(["a", "b", "c"].firstIndex(of: $0)! + 1):7700")
                    }
                ],
                now: 0)
            #expect(state.spans.links[Self.match]?.count == 2, "\(node) links the two others")
        }
        cluster.settle(now: 0)
        // alice and bob stand together; bert 50 m off (out of range), carol 1 km away.
        let spots: [(String, Int, RelayState, VoicePosition)] = [
            ("alice", 1, a, VoicePosition(x: 0, y: 0, z: 0)), ("bob", 2, b, VoicePosition(x: 10, y: 0, z: 0)),
            ("bert", 4, b, VoicePosition(x: 50, y: 0, z: 0)), ("carol", 3, c, VoicePosition(x: 1000, y: 0, z: 0)),
        ]
        for (player, port, state, position) in spots {
            try send(.hearingRange(channel: 1, range: 40), port: port, to: state, now: 1)
            try send(.position(mediaID: RelayStateTests.mediaID(player), position), port: port, to: state, now: 1)
            cluster.settle(now: 1)
        }
        for state in [a, b, c] { #expect(state.matches[Self.match]?.remote.count == (state === b ? 2 : 3)) }
        cluster.received = [:]

        voice(from: "alice", port: 1, to: a, now: 2)
        cluster.settle(now: 2)
        #expect(cluster.received == [2: 1], "bob hears alice; bert and carol are out of range")
        #expect(a.counters.peerVoiceSent == 1, "nothing is sent to c, where nobody is in range")
        #expect(c.counters.peerVoiceReceived == 0)

        // bert walks up to alice: b is sent her voice for him too, still once.
        try send(
            .position(mediaID: RelayStateTests.mediaID("bert"), VoicePosition(x: 5, y: 5, z: 0)), port: 4, to: b, now: 3
        )
        cluster.settle(now: 3)
        cluster.received = [:]
        voice(from: "alice", port: 1, to: a, now: 4)
        cluster.settle(now: 4)
        #expect(cluster.received == [2: 1, 4: 1])
        #expect(a.counters.peerVoiceSent == 2)
    }

    /// A relay advertised by a name is reached at the address the cluster looked it up as, or
    /// its messages came from: the relays never look a name up themselves.
    @Test func relaysAdvertisedByNameReachEachOther() throws {
        let cluster = cluster(["a", "b"], byName: true)
        let (a, b) = (cluster.relays["a"]!, cluster.relays["b"]!)
        for (state, player, port) in [(a, "alice", 1), (b, "bob", 2)] {
            state.spans.parts.insert(Self.match)
            try join(player, port: port, to: state)
        }
        cluster.settle(now: 0)
        // Only a has b's address as the cluster looked it up; b learns a's from a's messages.
        _ = a.spansListed([Self.match: [RelayNode(node: "b", address: "10.9.0.2:7700")]], now: 0)
        cluster.settle(now: 0)
        #expect(b.matches[Self.match]?.remote.map(\.participant) == ["alice"])
        #expect(a.matches[Self.match]?.remote.map(\.participant) == ["bob"])
        cluster.received = [:]
        voice(from: "alice", port: 1, to: a, now: 1)
        voice(from: "bob", port: 2, to: b, now: 1)
        cluster.settle(now: 1)
        #expect(cluster.received == [1: 1, 2: 1])
    }

    @Test func whatNoRelayOfTheClusterSentIsDropped() throws {
        let cluster = try spilledMatch()
        let (a, b) = (cluster.relays["a"]!, cluster.relays["b"]!)
        let envelope = Array(RelayStateTests.envelope(from: "alice").readableBytesView)
        // Sealed with another secret: a relay of another cluster, or a forger.
        let forged = try RelayPeerMessage(
            node: "a", address: "10.9.0.1:7700", match: Self.match, stamp: 99, body: .voice(envelope)
        ).sealed(with: RelayPeerKey(secret: RelaySecret.random()))
        b.received(ByteBuffer(bytes: forged), from: .udp(cluster.addresses["a"]!), now: 5)
        // Authentic, but for a player a does not have: a relay speaks only for its own players.
        let impostor = try RelayPeerMessage(
            node: "a", address: "10.9.0.1:7700", match: Self.match, stamp: 100,
            body: .voice(Array(RelayStateTests.envelope(from: "carol").readableBytesView))
        ).sealed(with: RelayPeerKey(secret: secret))
        b.received(ByteBuffer(bytes: impostor), from: .udp(cluster.addresses["a"]!), now: 5)
        // Cut short.
        b.received(ByteBuffer(bytes: Array(forged.prefix(20))), from: .udp(cluster.addresses["a"]!), now: 5)
        cluster.settle(now: 5)
        #expect(cluster.received.isEmpty)
        #expect(b.counters.drops(.peerUnauthenticated) == 2)
        #expect(b.counters.drops(.peerUnknown) == 1)
        #expect(a.counters.drops(.peerUnauthenticated) == 0)
        // A relay outside any cluster takes no relay's message at all.
        let alone = RelayStateTests().makeState()
        alone.received(ByteBuffer(bytes: impostor), from: .udp(cluster.addresses["a"]!), now: 5)
        #expect(alone.counters.drops(.malformed) == 1 && alone.actions.isEmpty)
    }

    @Test func playersOfARelayThatFellSilentAreForgotten() throws {
        let cluster = try spilledMatch()
        let (a, b) = (cluster.relays["a"]!, cluster.relays["b"]!)
        let second: UInt64 = 1_000_000_000
        // Both sweep every half second, a's descriptions reaching b; b's are lost from 1 s on.
        var now: UInt64 = 2
        while now < 5 * second {
            now += second / 2
            for port in [1, 2] { try send(.keepalive(nonce: 1), port: port, to: a, now: now) }
            try send(.keepalive(nonce: 1), port: 3, to: b, now: now)
            a.sweep(now: now)
            b.sweep(now: now)
            if now > second { _ = RelayStateTests.take(b) }
            cluster.settle(now: now)
        }
        #expect(a.matches[Self.match]?.remote.isEmpty == true, "carol was not described for 4 s")
        #expect(b.matches[Self.match]?.remote.count == 2, "alice and bob were described all along")
        voice(from: "alice", port: 1, to: a, now: now)
        cluster.settle(now: now)
        #expect(a.counters.peerVoiceSent == 0)
    }

    @Test func aRelayGivenPartOfAMatchTakesItsPlayersWithoutAskingTheCluster() throws {
        let cluster = try spilledMatch()
        let b = cluster.relays["b"]!
        #expect(b.spans.parts == [Self.match])
        // The part is b's to release once its last player leaves.
        try send(.leave, port: 3, to: b, now: 7)
        #expect(b.actions.contains { if case .release(Self.match) = $0 { true } else { false } })
        cluster.settle(now: 7)
        #expect(b.spans.parts.isEmpty && b.spans.links.isEmpty)
        #expect(cluster.relays["a"]!.matches[Self.match]?.remote.isEmpty == true)
    }
}

extension RelaySpanStateTests {
    func attachSignalling(_ participant: String, connection: UInt64, to relay: RelayState, now: UInt64 = 0) throws {
        let token = try RelayToken.sign(match: Self.match, participant: participant, expiry: 2_000_000, secret: secret)
        let source = RelaySource.tcp(RelayConnectionID(rawValue: connection))
        relay.connectionOpened(RelayConnectionID(rawValue: connection), from: nil, now: now)
        relay.received(
            ByteBuffer(bytes: try RelayMessage.signalJoin(token: token.text, participant: participant).serialized()),
            from: source, now: now)
    }

    /// What `relay` sent over `connection`, as relay messages.
    static func frames(_ decisions: RelayStateTests.Decisions, connection: UInt64) -> [RelayMessage] {
        decisions.actions.compactMap { action in
            guard case .frame(let buffer, let to) = action, to.rawValue == connection else { return nil }
            return try? RelayMessage(parsing: Array(buffer.readableBytesView))
        }
    }

    @Test func signallingSpansTheRelaysToo() throws {
        let cluster = try spilledMatch()
        let (a, b) = (cluster.relays["a"]!, cluster.relays["b"]!)
        try attachSignalling("carol", connection: 30, to: b, now: 5)
        let carolJoined = Self.frames(RelayStateTests.take(b), connection: 30)
        #expect(carolJoined == [.signalJoined(members: [])])
        // b's word of carol reaches a before alice attaches there.
        b.sweep(now: 5)
        cluster.settle(now: 5)
        try attachSignalling("alice", connection: 10, to: a, now: 6)
        #expect(Self.frames(RelayStateTests.take(a), connection: 10) == [.signalJoined(members: ["carol"])])
        // a tells b of alice: carol hears she joined.
        a.sweep(now: 6)
        var carolHeard: [RelayMessage] = []
        while !a.actions.isEmpty || !b.actions.isEmpty {
            for action in RelayStateTests.take(a).actions {
                if case .datagram(let buffer, let address) = action, address == cluster.addresses["b"] {
                    b.received(buffer, from: .udp(address), now: 6)
                }
            }
            carolHeard += Self.frames(RelayStateTests.take(b), connection: 30)
        }
        #expect(carolHeard.contains(.memberJoined("alice")))

        // alice's signal to carol crosses to b, and carol's answer back to a.
        let offer = Array("offer".utf8)
        a.received(
            ByteBuffer(bytes: try RelayMessage.sendSignal(to: "carol", payload: offer).serialized()),
            from: .tcp(RelayConnectionID(rawValue: 10)), now: 7)
        #expect(a.counters.signalsForwarded == 1)
        for action in RelayStateTests.take(a).actions {
            if case .datagram(let buffer, let address) = action, address == cluster.addresses["b"] {
                b.received(buffer, from: .udp(address), now: 7)
            }
        }
        #expect(Self.frames(RelayStateTests.take(b), connection: 30) == [.signal(from: "alice", payload: offer)])
        // A signal too large to cross between relays is dropped, and counted.
        a.received(
            ByteBuffer(
                bytes: try RelayMessage.sendSignal(to: "carol", payload: Array(repeating: 1, count: 2_000))
                    .serialized()),
            from: .tcp(RelayConnectionID(rawValue: 10)), now: 8)
        #expect(a.counters.drops(.tooLarge) == 1)

        // carol detaches: alice hears she left.
        b.received(
            ByteBuffer(bytes: try RelayMessage.leave.serialized()), from: .tcp(RelayConnectionID(rawValue: 30)), now: 9)
        _ = RelayStateTests.take(a)
        for action in RelayStateTests.take(b).actions {
            if case .datagram(let buffer, let address) = action, address == cluster.addresses["a"] {
                a.received(buffer, from: .udp(address), now: 9)
            }
        }
        #expect(Self.frames(RelayStateTests.take(a), connection: 10).contains(.memberLeft("carol")))
    }
}

extension RelaySpanStateTests {
    /// A player moving between relays (make before break) is on both for a moment: the others
    /// take the newer relay's word of it, and still take its voice from the one it is leaving.
    @Test func aPlayerMovingBetweenRelaysIsHeardThroughBoth() throws {
        let cluster = cluster(["a", "b", "c"])
        let (a, b, c) = (cluster.relays["a"]!, cluster.relays["b"]!, cluster.relays["c"]!)
        for (state, player, port) in [(a, "alice", 1), (b, "bob", 2), (c, "carol", 3)] {
            state.spans.parts.insert(Self.match)
            try join(player, port: port, to: state)
        }
        let everyone = ["a", "b", "c"].enumerated().map { RelayNode(node: $1, address: "10.9.0.\($0 + 1):7700") }
        for state in [a, b, c] { _ = state.spansListed([Self.match: everyone], now: 0) }
        cluster.settle(now: 0)
        // Bob joins c before he leaves b; a hears of him from c last.
        try join("bob", port: 4, to: c, now: 1)
        cluster.settle(now: 1)
        #expect(a.matches[Self.match]?.remoteMember(mediaID: RelayStateTests.mediaID("bob"))?.peer?.node == "c")
        cluster.received = [:]
        voice(from: "bob", port: 2, to: b, now: 2)
        cluster.settle(now: 2)
        #expect(cluster.received[1] == 1, "alice hears bob through the relay he is leaving")
        #expect(a.counters.drops(.peerUnknown) == 0)
    }
}
