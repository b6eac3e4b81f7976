import Foundation
import Logging
import NIOCore
import Testing
import VoiceCore
import VoiceRelayClient
import VoiceWire

@testable import VoiceRelay

/// `RelayState` alone: datagrams and frames in, actions out, time given by each call. No socket, no sleep.
@Suite struct RelayStateTests {
    static let match = "match-1"
    let secret = RelaySecret.random()
    let second: UInt64 = 1_000_000_000

    func makeState(
        livenessTimeout: Duration = .seconds(5), audience: String? = nil,
        logger: Logger = Logger(label: "voicechat.relay.state-test")
    ) -> RelayState {
        var configuration = RelayConfiguration(secret: secret)
        configuration.livenessTimeout = livenessTimeout
        configuration.audience = audience
        configuration.unixTime = { 1_000_000 }
        return RelayState(configuration: configuration, logger: logger)
    }

    static func address(_ port: Int) -> SocketAddress {
        try! SocketAddress(ipAddress: "10.0.0.1", port: port)
    }

    static func mediaID(_ participant: String) -> MediaID { ParticipantID(participant).mediaID }

    /// Joins `participant` from `source` and returns the actions the join caused.
    @discardableResult
    func join(
        _ participant: String, from source: RelaySource, channels: [ChannelNumber] = [1], muted: [String] = [],
        into state: RelayState, now: UInt64 = 0
    ) throws -> Decisions {
        let token = try RelayToken.sign(
            match: Self.match, participant: participant, expiry: 2_000_000, secret: secret
        ).text
        let join = RelayMessage.join(
            RelayJoin(token: token, participant: participant, channels: channels, muted: muted.map(Self.mediaID)))
        state.received(ByteBuffer(bytes: try join.serialized()), from: source, now: now)
        return Self.take(state)
    }

    /// An envelope the relay forwards by its clear header (the relay never opens it).
    static func envelope(
        from participant: String, channel: ChannelNumber = 1, to destination: String? = nil,
        content: SealedContent = .voice
    ) -> ByteBuffer {
        var bytes = [UInt8](repeating: 0xAB, count: SealedEnvelopeHeader.envelopeBytes(plaintextBytes: 40))
        let header = SealedEnvelopeHeader(
            content: content, channel: channel, sender: mediaID(participant),
            destination: destination.map(mediaID) ?? SealedEnvelopeHeader.everyone, epoch: 0, counter: 1)
        bytes.withUnsafeMutableBytes { try! header.write(into: $0) }
        return ByteBuffer(bytes: bytes)
    }

    /// What a state decided: its actions, and where their UDP copies go.
    struct Decisions {
        var actions: [RelayAction]
        var destinations: [RelayDatagramDestination]
        var isEmpty: Bool { actions.isEmpty }
    }

    /// What `state` decided since the last call; clears it, as its I/O side does.
    static func take(_ state: RelayState) -> Decisions {
        defer {
            state.actions.removeAll()
            state.forwardDestinations.removeAll()
        }
        return Decisions(actions: state.actions, destinations: state.forwardDestinations)
    }

    /// Where the forwarded copies go (UDP ports, then TCP connections), and how many envelopes
    /// the UDP copies were forwarded as.
    static func forwarded(_ decisions: Decisions) -> (udp: [Int], tcp: [UInt64], envelopes: Int) {
        var udp: [Int] = []
        var tcp: [UInt64] = []
        var envelopes = 0
        for action in decisions.actions {
            switch action {
            case .forward(_, let copies):
                udp += copies.map { decisions.destinations[$0].socketAddress.port ?? -1 }
                envelopes += 1
            case .frame(let buffer, let connection):
                if buffer.getInteger(at: buffer.readerIndex, as: UInt8.self).map({ $0 & 0x0F })
                    == WireMessageType.sealed.rawValue
                {
                    tcp.append(connection.rawValue)
                }
            case .datagram, .close, .place, .moveAway, .release, .spill, .partHasRoom: continue
            }
        }
        return (udp.sorted(), tcp.sorted(), envelopes)
    }

    /// The relay messages among `decisions`, with where they go.
    static func messages(_ decisions: Decisions) -> [(RelaySource, RelayMessage)] {
        decisions.actions.compactMap { action in
            switch action {
            case .datagram(let buffer, let address):
                (try? RelayMessage(parsing: Array(buffer.readableBytesView))).map { (.udp(address), $0) }
            case .frame(let buffer, let connection):
                (try? RelayMessage(parsing: Array(buffer.readableBytesView))).map { (.tcp(connection), $0) }
            case .forward, .close, .place, .moveAway, .release, .spill, .partHasRoom: nil
            }
        }
    }

    static func closed(_ decisions: Decisions) -> [UInt64] {
        decisions.actions.compactMap { if case .close(let connection) = $0 { connection.rawValue } else { nil } }
    }

    @Test func aJoinIsAnsweredWithTheMediaIDAndTheServerMute() throws {
        let state = makeState()
        let replies = Self.messages(try join("alice", from: .udp(Self.address(1)), into: state))
        #expect(replies.map(\.1) == [.joined(mediaID: Self.mediaID("alice")), .serverMute(false)])
        #expect(replies.allSatisfy { $0.0 == .udp(Self.address(1)) })
        #expect(state.participantCount == 1)
    }

    @Test func anEnvelopeFansOutToEveryoneInItsChannelButTheSenderAndWhoeverMutedIt() throws {
        let state = makeState()
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("bob", from: .udp(Self.address(2)), into: state)
        try join("carol", from: .udp(Self.address(3)), muted: ["alice"], into: state)
        try join("dave", from: .udp(Self.address(4)), channels: [2], into: state)
        try join("erin", from: .tcp(RelayConnectionID(rawValue: 9)), into: state)

        state.received(Self.envelope(from: "alice", channel: 1), from: .udp(Self.address(1)), now: 1)
        let channelOne = Self.forwarded(Self.take(state))
        #expect(channelOne.udp == [2])
        #expect(channelOne.tcp == [9])
        #expect(channelOne.envelopes == 1, "the UDP copies of one envelope go out as one")

        state.received(Self.envelope(from: "alice", channel: 0), from: .udp(Self.address(1)), now: 2)
        let match = Self.forwarded(Self.take(state))
        #expect(match.udp == [2, 4], "channel 0 reaches the whole match; carol muted alice's voice")
        #expect(match.tcp == [9])
        #expect(match.envelopes == 1)

        // Data that is not voice reaches those who muted the sender's voice.
        state.received(
            Self.envelope(from: "alice", channel: 1, content: .gameData), from: .udp(Self.address(1)), now: 3)
        #expect(Self.forwarded(Self.take(state)).udp == [2, 3])
        #expect(state.counters.packetsForwarded == 2 + 3 + 3)
    }

    @Test func anEnvelopeForOneMemberGoesToItAloneAndAnUnknownOneIsDropped() throws {
        let state = makeState()
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("bob", from: .udp(Self.address(2)), into: state)
        try join("carol", from: .udp(Self.address(3)), into: state)

        state.received(Self.envelope(from: "alice", to: "carol"), from: .udp(Self.address(1)), now: 1)
        #expect(Self.forwarded(Self.take(state)).udp == [3])

        state.received(Self.envelope(from: "alice", to: "nobody"), from: .udp(Self.address(1)), now: 2)
        #expect(Self.take(state).isEmpty)
        #expect(state.counters.drops(.unknownDestination) == 1)
    }

    @Test func envelopesFromStrangersAndImpostorsAreDropped() throws {
        let state = makeState()
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("bob", from: .udp(Self.address(2)), into: state)

        state.received(Self.envelope(from: "alice"), from: .udp(Self.address(7)), now: 1)
        state.received(Self.envelope(from: "bob"), from: .udp(Self.address(1)), now: 1)
        #expect(Self.take(state).isEmpty)
        #expect(state.counters.drops(.notJoined) == 1)
        #expect(state.counters.drops(.spoofedSender) == 1)
    }

    @Test func whatArrivesOverTCPGoesOverTheRecipientsTCPWhenItHasOne() throws {
        let state = makeState()
        let bobTCP = RelayConnectionID(rawValue: 5)
        try join("alice", from: .tcp(RelayConnectionID(rawValue: 4)), into: state)
        try join("bob", from: .udp(Self.address(2)), into: state)
        try join("bob", from: .tcp(bobTCP), into: state)

        state.received(Self.envelope(from: "alice"), from: .tcp(RelayConnectionID(rawValue: 4)), now: 1)
        let reliable = Self.forwarded(Self.take(state))
        #expect(reliable.udp.isEmpty && reliable.tcp == [5])

        try join("alice", from: .udp(Self.address(1)), into: state)
        state.received(Self.envelope(from: "alice"), from: .udp(Self.address(1)), now: 2)
        let unreliable = Self.forwarded(Self.take(state))
        #expect(unreliable.udp == [2] && unreliable.tcp.isEmpty)
    }

    @Test func aCongestedConnectionLosesCopiesUntilItDrains() throws {
        let state = makeState()
        let bob = RelayConnectionID(rawValue: 2)
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("bob", from: .tcp(bob), into: state)

        state.connectionWritabilityChanged(bob, isWritable: false)
        state.received(Self.envelope(from: "alice"), from: .udp(Self.address(1)), now: 1)
        #expect(Self.forwarded(Self.take(state)).tcp.isEmpty)
        #expect(state.counters.drops(.recipientCongested) == 1)

        state.connectionWritabilityChanged(bob, isWritable: true)
        state.received(Self.envelope(from: "alice"), from: .udp(Self.address(1)), now: 2)
        #expect(Self.forwarded(Self.take(state)).tcp == [2])
    }

    @Test func aSilentTransportIsDroppedAndItsConnectionClosed() throws {
        let state = makeState(livenessTimeout: .seconds(5))
        let bob = RelayConnectionID(rawValue: 2)
        try join("alice", from: .udp(Self.address(1)), into: state, now: 0)
        try join("bob", from: .tcp(bob), into: state, now: 0)

        state.received(Self.envelope(from: "alice"), from: .udp(Self.address(1)), now: 4 * second)
        _ = Self.take(state)
        state.sweep(now: 6 * second)
        #expect(Self.closed(Self.take(state)) == [2])
        #expect(state.participantCount == 1)
        #expect(state.member(match: Self.match, participant: "bob") == nil)

        state.sweep(now: 10 * second)
        #expect(state.participantCount == 0)
        #expect(state.matches.isEmpty)
    }

    @Test func aKickTellsEveryTransportAndClosesTheConnection() throws {
        let state = makeState()
        let bob = RelayConnectionID(rawValue: 2)
        try join("bob", from: .udp(Self.address(2)), into: state)
        try join("bob", from: .tcp(bob), into: state)

        #expect(state.kick(match: Self.match, participant: "bob"))
        let actions = Self.take(state)
        let kicks = Self.messages(actions).filter { $0.1 == .kicked(.admin) }.map(\.0)
        #expect(Set(kicks) == [.udp(Self.address(2)), .tcp(bob)])
        #expect(Self.closed(actions) == [2])
        #expect(state.participantCount == 0)
        #expect(!state.kick(match: Self.match, participant: "bob"))
    }

    @Test func aSecondConnectionOfAMemberReplacesTheFirst() throws {
        let state = makeState()
        try join("bob", from: .tcp(RelayConnectionID(rawValue: 1)), into: state)
        let actions = try join("bob", from: .tcp(RelayConnectionID(rawValue: 2)), into: state)
        #expect(
            Self.messages(actions).contains {
                $0.0 == .tcp(RelayConnectionID(rawValue: 1)) && $0.1 == .kicked(.replaced)
            })
        #expect(Self.closed(actions) == [1])

        state.tcpClosed(RelayConnectionID(rawValue: 1))
        #expect(state.participantCount == 1, "the replaced connection's close leaves the member")
        state.tcpClosed(RelayConnectionID(rawValue: 2))
        #expect(state.participantCount == 0)
    }

    /// A TCP connection that has not joined within the hello deadline is closed, counted and
    /// logged; one that joined in time stays (a long liveness timeout keeps the joined one's own
    /// sweep out of the way).
    @Test func aConnectionThatDoesNotJoinWithinTheHelloDeadlineIsClosed() throws {
        let log = RecordedLog()
        let state = makeState(livenessTimeout: .seconds(60), logger: log.logger)
        let idle = RelayConnectionID(rawValue: 21)
        let joined = RelayConnectionID(rawValue: 22)
        state.connectionOpened(idle, from: try SocketAddress(ipAddress: "192.0.2.9", port: 4002), now: 0)
        state.connectionOpened(joined, from: nil, now: 0)
        _ = try join("bob", from: .tcp(joined), into: state, now: 1 * second)
        func closed() -> [RelayConnectionID] {
            Self.take(state).actions.compactMap { if case .close(let connection) = $0 { connection } else { nil } }
        }

        state.sweep(now: 5 * second)
        #expect(closed().isEmpty)
        state.sweep(now: 5 * second + 1)
        #expect(closed() == [idle])
        #expect(state.counters.drops(.helloTimeout) == 1)
        let line = try #require(log.lines.first { $0.message == "closed a connection that did not join" })
        #expect(line.metadata["from"] == "tcp 192.0.2.9:4002")
        state.sweep(now: 30 * second)
        #expect(closed().isEmpty)
        #expect(state.participantCount == 1)
    }

    /// One address may hold only so many connections that have not joined: the next is closed as
    /// it opens, counted and logged (once per sweep), while other addresses, and the same address
    /// once one of its connections joined, are let in.
    /// A connection that has not joined is closed at the first header announcing more than a join;
    /// a join's length passes, and once joined, so does the longest frame.
    @Test func aConnectionThatHasNotJoinedMayAnnounceNoFrameLongerThanAJoin() throws {
        let state = makeState(livenessTimeout: .seconds(60))
        let address = try SocketAddress(ipAddress: "192.0.2.9", port: 1)
        func closed() -> [RelayConnectionID] {
            Self.take(state).actions.compactMap { if case .close(let connection) = $0 { connection } else { nil } }
        }
        let flooder = RelayConnectionID(rawValue: 1)
        let player = RelayConnectionID(rawValue: 2)
        state.connectionOpened(flooder, from: address, now: 0)
        state.connectionOpened(player, from: address, now: 0)
        _ = closed()
        #expect(state.tcpFrameAnnounced(length: RelayMessage.maximumJoinBytes, on: flooder))
        #expect(!state.tcpFrameAnnounced(length: RelayMessage.maximumJoinBytes + 1, on: flooder))
        #expect(closed() == [flooder])
        #expect(state.counters.drops(.unjoinedFrameTooLarge) == 1)
        _ = try join("bob", from: .tcp(player), into: state, now: 1)
        _ = closed()
        #expect(state.tcpFrameAnnounced(length: 65_535, on: player))
        #expect(closed().isEmpty)
    }

    @Test func anAddressHoldsOnlySoManyConnectionsThatHaveNotJoined() throws {
        let log = RecordedLog()
        let state = makeState(livenessTimeout: .seconds(60), logger: log.logger)
        let limit = RelayLimits().maximumUnjoinedConnectionsPerAddress
        let attacker = try SocketAddress(ipAddress: "192.0.2.66", port: 1)
        func closed() -> [RelayConnectionID] {
            Self.take(state).actions.compactMap { if case .close(let connection) = $0 { connection } else { nil } }
        }
        for index in 0..<limit {
            state.connectionOpened(RelayConnectionID(rawValue: UInt64(100 + index)), from: attacker, now: 0)
        }
        #expect(closed().isEmpty)
        let over = RelayConnectionID(rawValue: 1_000)
        state.connectionOpened(over, from: attacker, now: 0)
        #expect(closed() == [over])
        #expect(state.counters.drops(.addressConnectionLimit) == 1)

        // Someone else joins at once.
        let player = RelayConnectionID(rawValue: 2_000)
        state.connectionOpened(player, from: try SocketAddress(ipAddress: "192.0.2.7", port: 5), now: 0)
        #expect(closed().isEmpty)
        _ = try join("bob", from: .tcp(player), into: state, now: 1)
        #expect(state.participantCount == 1)

        // One of the address's connections joins: it frees a place, as a closed one does.
        _ = try join("carol", from: .tcp(RelayConnectionID(rawValue: 100)), into: state, now: 2)
        state.tcpClosed(RelayConnectionID(rawValue: 101))
        state.connectionOpened(RelayConnectionID(rawValue: 1_001), from: attacker, now: 3)
        state.connectionOpened(RelayConnectionID(rawValue: 1_002), from: attacker, now: 3)
        #expect(closed().isEmpty)
        state.connectionOpened(RelayConnectionID(rawValue: 1_003), from: attacker, now: 3)
        #expect(closed() == [RelayConnectionID(rawValue: 1_003)])

        state.sweep(now: second)
        let line = try #require(
            log.lines.first { $0.message == "refused connections or joins over the per-address limits" })
        #expect(line.level == .notice)
        #expect(line.metadata["address"] == "192.0.2.66")
        #expect(line.metadata["connections"] == "2")
        // Past the hello deadline the rest are closed and the address may connect again.
        state.sweep(now: 6 * second)
        #expect(closed().count == limit)
        state.connectionOpened(RelayConnectionID(rawValue: 1_004), from: attacker, now: 6 * second)
        #expect(closed().isEmpty)
    }

    /// Join attempts from one address beyond its burst and rate are dropped unanswered and
    /// counted; another address still joins.
    @Test func joinAttemptsFromOneAddressAreRateLimited() throws {
        let state = makeState()
        let burst = Int(RelayLimits().joinAttemptBurst)
        let forged = try RelayToken.sign(
            match: Self.match, participant: "mallory", expiry: 2_000_000, secret: RelaySecret.random()
        ).text
        let attempt = try RelayMessage.join(RelayJoin(token: forged, participant: "mallory", channels: [], muted: []))
            .serialized()
        for port in 0..<(burst + 10) {
            state.received(ByteBuffer(bytes: attempt), from: .udp(Self.address(1_000 + port)), now: 0)
        }
        // Every attempt within the burst was answered (refused: a forged token); the rest were not.
        let answered = Self.take(state).actions.count
        #expect(answered == burst)
        #expect(state.counters.drops(.joinRateLimited) == 10)
        #expect(state.counters.drops(.refusedJoin) == burst)
        _ = try join("alice", from: .udp(try SocketAddress(ipAddress: "10.0.0.2", port: 9)), into: state, now: 0)
        #expect(state.participantCount == 1)
        // A second later the address has tokens again.
        _ = try join("bob", from: .udp(Self.address(1)), into: state, now: second)
        #expect(state.participantCount == 2)
    }

    /// Once it has shut down, the relay takes nothing: a client's rejoin that arrives while its
    /// sockets close is not admitted into an empty match (whose roster would tell the client that
    /// its other players had left), and a new connection is closed at once.
    @Test func aRelayThatHasShutDownAdmitsNobody() throws {
        let state = makeState()
        try join("alice", from: .udp(Self.address(1)), into: state)
        state.shutDown()
        _ = Self.take(state)
        let rejoin = try join("alice", from: .udp(Self.address(1)), into: state)
        #expect(rejoin.isEmpty)
        #expect(state.matches.isEmpty)
        let token = try RelayToken.sign(match: Self.match, participant: "alice", expiry: 2_000_000, secret: secret)
        let signalJoin = try RelayMessage.signalJoin(token: token.text, participant: "alice").serialized()
        state.received(ByteBuffer(bytes: signalJoin), from: .tcp(RelayConnectionID(rawValue: 7)), now: 0)
        #expect(state.signallingMatches.isEmpty)
        state.connectionOpened(RelayConnectionID(rawValue: 8), from: Self.address(2), now: 0)
        let closes = Self.take(state).actions.compactMap { action -> RelayConnectionID? in
            if case .close(let connection) = action { return connection }
            return nil
        }
        #expect(closes == [RelayConnectionID(rawValue: 7), RelayConnectionID(rawValue: 8)])
    }

    /// A relay named "eu-1" takes tokens for it and for any relay, and answers one for another
    /// relay with a refusal that says so.
    @Test func aTokenForAnotherRelayIsRefused() throws {
        let state = makeState(audience: "eu-1")
        func joins(_ participant: String, audience: String, port: Int) throws -> [RelayMessage] {
            let token = try RelayToken.sign(
                audience: audience, match: Self.match, participant: participant, expiry: 2_000_000, secret: secret
            ).text
            let join = RelayMessage.join(RelayJoin(token: token, participant: participant, channels: [1], muted: []))
            state.received(ByteBuffer(bytes: try join.serialized()), from: .udp(Self.address(port)), now: 0)
            return Self.take(state).actions.compactMap { action in
                guard case .datagram(let bytes, _) = action else { return nil }
                return bytes.withUnsafeReadableBytes { try? RelayMessage(parsing: $0) }
            }
        }
        #expect(try joins("alice", audience: "eu-1", port: 1).contains { if case .joined = $0 { true } else { false } })
        #expect(try joins("bob", audience: "", port: 2).contains { if case .joined = $0 { true } else { false } })
        #expect(try joins("mallory", audience: "us-2", port: 3) == [.refused(.wrongAudience)])
        #expect(state.refusals[Int(RelayRefusal.wrongAudience.rawValue)] == 1)
    }

    /// Players learn where the others stand from the relay: a member hearing a channel positionally
    /// is told where each player within its range stands, by the reporter's or the game server's
    /// word, as it comes into range and as it moves, and once more as it leaves; nobody is told of
    /// players out of its range, nor is one that hears the channel whole (before, each game had
    /// to tell every player every other player's position by hand).
    @Test func membersAreToldWhereThePlayersInTheirRangeStand() throws {
        let state = makeState()
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("bob", from: .udp(Self.address(2)), into: state)
        try join("carol", from: .udp(Self.address(3)), into: state)
        func send(_ message: RelayMessage, from port: Int) throws -> [RelayMessage] {
            state.received(ByteBuffer(bytes: try message.serialized()), from: .udp(Self.address(port)), now: 0)
            let messages = Self.messages(Self.take(state))
            #expect(messages.allSatisfy { $0.0 == .udp(Self.address(1)) }, "only alice hears positionally")
            return messages.map(\.1)
        }
        func bob(_ x: Float) -> RelayMessage {
            .position(mediaID: Self.mediaID("bob"), VoicePosition(x: x, y: 0, z: 0))
        }
        #expect(try send(bob(5), from: 2).isEmpty, "nobody hears positionally")
        #expect(try send(.position(mediaID: Self.mediaID("alice"), .origin), from: 1).isEmpty)
        // Alice starts hearing channel 1 within 10: she learns where bob stands.
        #expect(try send(.hearingRange(channel: 1, range: 10), from: 1) == [bob(5)])
        #expect(try send(bob(7), from: 2) == [bob(7)])
        // The game server places carol within alice's range: alice is told.
        let carol = try #require(state.member(match: Self.match, participant: "carol"))
        state.placeByServer(carol, at: VoicePosition(x: -3, y: 0, z: 0))
        #expect(
            Self.messages(Self.take(state)).map(\.1) == [
                .position(mediaID: Self.mediaID("carol"), VoicePosition(x: -3, y: 0, z: 0))
            ])
        // Bob walks out of range: told once as he leaves, then no more.
        #expect(try send(bob(50), from: 2) == [bob(50)])
        #expect(try send(bob(60), from: 2).isEmpty)
    }

    /// A player joins once, however many transports it joins over and however often its client
    /// repeats the join (before, one player in auto mode logged "joined" four times, and three
    /// players counted as nine joins); the game server's mute, move and placing are logged.
    @Test func aPlayerJoinsOnceAndTheGameServersOrdersAreLogged() throws {
        let log = RecordedLog()
        let state = makeState(logger: log.logger)
        let connection = RelayConnectionID(rawValue: 3)
        state.connectionOpened(connection, from: try SocketAddress(ipAddress: "192.0.2.9", port: 4000), now: 0)
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("alice", from: .tcp(connection), into: state)
        try join("bob", from: .udp(Self.address(2)), into: state)
        #expect(state.joins == 2)
        #expect(log.lines.filter { $0.message == "joined" }.count == 2)
        // Channels travel as numbers; without a name from a player, the log shows the number.
        #expect(log.lines.first { $0.message == "joined" }?.metadata["channels"] == "[\"#1\"]")
        #expect(log.lines.filter { $0.message == "joined again" && $0.level == .debug }.count == 2)

        let alice = try #require(state.member(match: Self.match, participant: "alice"))
        state.setServerMute(true, of: alice)
        state.move(alice, toChannel: 1)
        state.placeByServer(alice, at: VoicePosition(x: 1, y: 2, z: 3))
        for message in ["server-muted by the game server", "moved by the game server", "placed by the game server"] {
            let line = log.lines.first { $0.message == message }
            #expect(line?.level == .info, "\(message)")
            #expect(line?.metadata["participant"] == "alice", "\(message)")
        }
    }

    /// The names players give their channels (in the join, or for channels started later) are
    /// what the relay's log and admin show (before, only numbers: the wire carries a hash of the name).
    @Test func channelsAreShownByTheNamesThePlayersGaveThem() async throws {
        let log = RecordedLog()
        let state = makeState(logger: log.logger)
        let token = try RelayToken.sign(match: Self.match, participant: "alice", expiry: 2_000_000, secret: secret).text
        let join = RelayMessage.join(
            RelayJoin(token: token, participant: "alice", channels: [7], muted: [], channelNames: [7: "team"]))
        state.received(ByteBuffer(bytes: try join.serialized()), from: .udp(Self.address(1)), now: 0)
        #expect(log.lines.first { $0.message == "joined" }?.metadata["channels"] == "[\"team\"]")
        state.received(
            ByteBuffer(bytes: try RelayMessage.startChannel(8).serialized()), from: .udp(Self.address(1)), now: 0)
        state.received(
            ByteBuffer(bytes: try RelayMessage.channelName(8, "all").serialized()), from: .udp(Self.address(1)), now: 0)
        let alice = try #require(state.member(match: Self.match, participant: "alice"))
        #expect(alice.channels.map { alice.match.name(of: $0) } == ["team", "all"])
        state.move(alice, toChannel: 8)
        #expect(log.lines.first { $0.message == "moved by the game server" }?.metadata["channel"] == "all")
    }

    /// One refused player is one refusal: its client's joins over UDP, TCP and signalling, and its
    /// retries, are logged and counted once within ten seconds (before, three log lines and two or
    /// three refusals in the totals); each is still answered.
    @Test func aRefusedPlayerIsLoggedAndCountedOnce() throws {
        let log = RecordedLog()
        let state = makeState(logger: log.logger)
        let connection = RelayConnectionID(rawValue: 5)
        let signalling = RelayConnectionID(rawValue: 6)
        state.connectionOpened(connection, from: try SocketAddress(ipAddress: "192.0.2.9", port: 4000), now: 0)
        state.connectionOpened(signalling, from: try SocketAddress(ipAddress: "192.0.2.9", port: 4001), now: 0)
        let forged = try RelayToken.sign(
            match: Self.match, participant: "mallory", expiry: 2_000_000, secret: RelaySecret.random()
        ).text
        let join = RelayMessage.join(RelayJoin(token: forged, participant: "mallory", channels: [], muted: []))
        let signalJoin = RelayMessage.signalJoin(token: forged, participant: "mallory")
        var answers = 0
        for (message, source) in [
            (join, RelaySource.udp(Self.address(9))), (join, .tcp(connection)), (signalJoin, .tcp(signalling)),
        ] {
            state.received(ByteBuffer(bytes: try message.serialized()), from: source, now: second)
            answers += Self.messages(Self.take(state)).filter { $0.1 == .refused(.badSignature) }.count
        }
        #expect(answers == 3)
        #expect(log.lines.filter { $0.message == "refused join" && $0.level == .notice }.count == 1)
        #expect(state.refusals[Int(RelayRefusal.badSignature.rawValue)] == 1)
        // Later, it is news again.
        state.sweep(now: 12 * second)
        state.received(ByteBuffer(bytes: try join.serialized()), from: .udp(Self.address(9)), now: 12 * second)
        #expect(state.refusals[Int(RelayRefusal.badSignature.rawValue)] == 2)
    }

    /// One line per join, leave and refused join, naming the player, the match, where it came
    /// from and why it left or was refused.
    @Test func joinsLeavesAndRefusalsAreLoggedWithTheirReasons() throws {
        let log = RecordedLog()
        let state = makeState(logger: log.logger)
        let bob = RelayConnectionID(rawValue: 7)
        state.connectionOpened(bob, from: try SocketAddress(ipAddress: "192.0.2.9", port: 4000), now: 0)
        try join("alice", from: .udp(Self.address(1)), into: state)
        try join("bob", from: .tcp(bob), into: state)
        let forged = try RelayToken.sign(
            match: Self.match, participant: "mallory", expiry: 2_000_000, secret: RelaySecret.random()
        ).text
        let join = RelayMessage.join(RelayJoin(token: forged, participant: "mallory", channels: [], muted: []))
        state.received(ByteBuffer(bytes: try join.serialized()), from: .udp(Self.address(9)), now: 0)
        _ = state.kick(match: Self.match, participant: "alice")
        state.sweep(now: 6 * second)

        func line(_ message: String, _ participant: String) -> RecordedLog.Line? {
            log.lines.first { $0.message == message && $0.metadata["participant"] == "\(participant)" }
        }
        let joined = try #require(line("joined", "bob"))
        #expect(joined.level == .info)
        #expect(joined.metadata["match"] == "\(Self.match)")
        #expect(joined.metadata["from"] == "tcp 192.0.2.9:4000")
        #expect(line("joined", "alice")?.metadata["from"] == "udp 10.0.0.1:1")
        let refused = try #require(line("refused join", "mallory"))
        #expect(refused.level == .notice)
        #expect(refused.metadata["from"] == "udp 10.0.0.1:9")
        #expect(refused.metadata["reason"] == "\(RelayRefusal.badSignature)")
        #expect(line("left", "alice")?.metadata["reason"] == "kicked by the game server")
        #expect(line("left", "bob")?.metadata["reason"] == "nothing heard for 5.0 seconds")

        // A closed connection's address is forgotten, whatever it was attached to.
        let signalling = RelayConnectionID(rawValue: 8)
        state.connectionOpened(signalling, from: try SocketAddress(ipAddress: "192.0.2.9", port: 4001), now: 7 * second)
        let token = try RelayToken.sign(match: Self.match, participant: "carol", expiry: 2_000_000, secret: secret).text
        let signalJoin = RelayMessage.signalJoin(token: token, participant: "carol")
        state.received(ByteBuffer(bytes: try signalJoin.serialized()), from: .tcp(signalling), now: 7 * second)
        for connection in [bob, signalling] {
            state.tcpClosed(connection)
            #expect(state.describe(.tcp(connection)) == "tcp ?")
        }
    }

    @Test func signalsGoToTheirDestinationsConnectionAndRostersFollowJoinsAndLeaves() throws {
        let state = makeState()
        let alice = RelayConnectionID(rawValue: 1)
        let bob = RelayConnectionID(rawValue: 2)
        func signalJoin(_ participant: String, _ connection: RelayConnectionID) throws -> Decisions {
            let token = try RelayToken.sign(
                match: Self.match, participant: participant, expiry: 2_000_000, secret: secret
            ).text
            let message = RelayMessage.signalJoin(token: token, participant: participant)
            state.received(ByteBuffer(bytes: try message.serialized()), from: .tcp(connection), now: 0)
            return Self.take(state)
        }
        #expect(Self.messages(try signalJoin("alice", alice)).map(\.1) == [.signalJoined(members: [])])
        let bobJoined = Self.messages(try signalJoin("bob", bob))
        #expect(bobJoined.contains { $0.0 == .tcp(alice) && $0.1 == .memberJoined("bob") })
        #expect(bobJoined.contains { $0.0 == .tcp(bob) && $0.1 == .signalJoined(members: ["alice"]) })

        let send = RelayMessage.sendSignal(to: "bob", payload: [1, 2, 3])
        state.received(ByteBuffer(bytes: try send.serialized()), from: .tcp(alice), now: 1)
        let delivered = Self.messages(Self.take(state))
        #expect(delivered.count == 1)
        #expect(delivered.first?.0 == .tcp(bob) && delivered.first?.1 == .signal(from: "alice", payload: [1, 2, 3]))

        state.tcpClosed(bob)
        #expect(Self.messages(Self.take(state)).map(\.1) == [.memberLeft("bob")])
        #expect(state.signallingCount == 1)
    }
}

/// What a logger was asked to log, for tests of log lines.
final class RecordedLog: @unchecked Sendable {
    struct Line {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let lock = NSLock()
    private var recorded: [Line] = []

    var lines: [Line] { lock.withLock { recorded } }

    func append(_ line: Line) { lock.withLock { recorded.append(line) } }

    var logger: Logger {
        Logger(label: "voicechat.relay.recorded") { _ in RecordingLogHandler(log: self) }
    }
}

struct RecordingLogHandler: LogHandler {
    let log: RecordedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        log.append(.init(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:]))
    }
}
