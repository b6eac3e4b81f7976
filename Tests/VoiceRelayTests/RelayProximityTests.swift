import NIOCore
import Testing
import VoiceCore
import VoiceWire

@testable import VoiceRelay

/// Positional channels in `RelayState` alone: positions and ranges in, forwarded copies out. No socket, no sleep.
@Suite struct RelayProximityTests {
    let base = RelayStateTests()
    let second: UInt64 = 1_000_000_000

    /// Ports of the members by name, for joining and reading where copies went.
    static let ports = ["alice": 1, "bob": 2, "carol": 3, "dave": 4]

    func source(_ participant: String) -> RelaySource { .udp(RelayStateTests.address(Self.ports[participant]!)) }

    func tell(_ message: RelayMessage, from participant: String, to state: RelayState, now: UInt64 = 0) throws {
        state.received(ByteBuffer(bytes: try message.serialized()), from: source(participant), now: now)
        _ = RelayStateTests.take(state)
    }

    func place(_ participant: String, x: Float, in state: RelayState, now: UInt64 = 0) throws {
        try tell(
            .position(mediaID: RelayStateTests.mediaID(participant), VoicePosition(x: x, y: 0, z: 0)),
            from: participant, to: state, now: now)
    }

    /// The ports alice's voice on `channel` reached.
    func hearersOfAlice(on channel: ChannelNumber = 1, in state: RelayState, now: UInt64 = 0) -> [Int] {
        state.received(RelayStateTests.envelope(from: "alice", channel: channel), from: source("alice"), now: now)
        return RelayStateTests.forwarded(RelayStateTests.take(state)).udp
    }

    func match(_ participants: [String], channels: [ChannelNumber] = [1]) throws -> RelayState {
        let state = base.makeState()
        for participant in participants {
            try base.join(participant, from: source(participant), channels: channels, into: state)
        }
        return state
    }

    @Test func aPositionalChannelReachesOnlyTheListenersWithinTheirRange() throws {
        let state = try match(["alice", "bob", "carol", "dave"], channels: [1, 2])
        for (participant, x) in [("alice", 0), ("bob", 10), ("carol", 50), ("dave", 100)] as [(String, Float)] {
            try place(participant, x: x, in: state)
        }
        // dave hears channel 1 whole; the others within 40.
        for participant in ["alice", "bob", "carol"] {
            try tell(.hearingRange(channel: 1, range: 40), from: participant, to: state)
        }
        #expect(hearersOfAlice(in: state) == [2, 4], "bob is 10 away; carol 50; dave hears the channel whole")
        #expect(state.counters.packetsOutOfRange == 1)
        #expect(hearersOfAlice(on: 2, in: state) == [2, 3, 4], "channel 2 is nobody's positional channel")

        // Game data on channel 1 is not voice: range does not apply to it.
        state.received(
            RelayStateTests.envelope(from: "alice", channel: 1, content: .gameData), from: source("alice"), now: 0)
        #expect(RelayStateTests.forwarded(RelayStateTests.take(state)).udp == [2, 3, 4])

        // A range of 0 hears the channel whole again.
        try tell(.hearingRange(channel: 1, range: 0), from: "carol", to: state)
        #expect(hearersOfAlice(in: state) == [2, 3, 4])
    }

    @Test func aPlayerAtTheEdgeIsKeptWithinAMarginAndLetInOnlyWithinTheRange() throws {
        let state = try match(["alice", "bob"])
        try tell(.hearingRange(channel: 1, range: 40), from: "bob", to: state)
        #expect(HearingRange.defaultMargin(for: 40) == 4)
        try place("alice", x: 0, in: state)
        var now: UInt64 = 0
        // bob walks out past the edge and back; the relay has him hear alice from within 40 on,
        // and lose her only beyond 44.
        let walk: [(Float, Bool)] = [
            (41, false), (40, true), (43.9, true), (42, true), (44.1, false), (42, false), (40.5, false), (39.9, true),
        ]
        for (x, heard) in walk {
            now += second
            try place("bob", x: x, in: state, now: now)
            #expect((hearersOfAlice(in: state, now: now) == [2]) == heard, "bob at \(x)")
        }
    }

    @Test func aPlayerWithoutAPositionIsNeitherHeardNorHearsOnAPositionalChannel() throws {
        let state = try match(["alice", "bob"])
        try tell(.hearingRange(channel: 1, range: 40), from: "bob", to: state)
        try place("bob", x: 0, in: state)
        #expect(hearersOfAlice(in: state).isEmpty, "alice has not said where she is")
        try place("alice", x: 5, in: state)
        #expect(hearersOfAlice(in: state) == [2])
    }

    @Test func aPositionForAnotherPlayerIsRefusedAndCounted() throws {
        let state = try match(["alice", "bob", "carol"])
        try tell(.hearingRange(channel: 1, range: 40), from: "bob", to: state)
        try place("bob", x: 0, in: state)
        try place("alice", x: 100, in: state)
        // carol claims alice stands next to bob.
        try tell(
            .position(mediaID: RelayStateTests.mediaID("alice"), VoicePosition(x: 1, y: 0, z: 0)), from: "carol",
            to: state)
        #expect(state.counters.drops(.foreignPosition) == 1)
        #expect(state.member(match: RelayStateTests.match, participant: "alice")?.position?.x == 100)
        #expect(hearersOfAlice(in: state) == [3], "bob still does not hear alice; carol hears the channel whole")
    }

    @Test func theGameServersPlacementStandsOverThePlayersOwnReports() throws {
        let state = try match(["alice", "bob"])
        try tell(.hearingRange(channel: 1, range: 40), from: "bob", to: state)
        try place("bob", x: 0, in: state)
        let alice = try #require(state.member(match: RelayStateTests.match, participant: "alice"))
        state.placeByServer(alice, at: VoicePosition(x: 200, y: 0, z: 0))
        try place("alice", x: 1, in: state, now: second)
        #expect(state.counters.drops(.positionHeldByServer) == 1)
        #expect(hearersOfAlice(in: state).isEmpty, "the server has her 200 away")

        state.placeByServer(alice, at: nil)
        try place("alice", x: 1, in: state, now: 2 * second)
        #expect(hearersOfAlice(in: state) == [2], "released, her own report counts again")
    }

    @Test func positionsAreRateLimitedPerMember() throws {
        let state = try match(["alice"])
        let limits = RelayLimits()
        for index in 0..<Int(limits.positionBurst) + 5 {
            try place("alice", x: Float(index), in: state)
        }
        #expect(state.counters.drops(.rateLimited) == 5)
        #expect(
            state.member(match: RelayStateTests.match, participant: "alice")?.position?.x
                == Float(limits.positionBurst - 1))
        try place("alice", x: 99, in: state, now: second)
        #expect(state.member(match: RelayStateTests.match, participant: "alice")?.position?.x == 99)
    }

    @Test func aPlayerWhoLeavesAndJoinsAgainIsHeardOnlyOnceItSaysWhereItIs() throws {
        let state = try match(["alice", "bob"])
        try tell(.hearingRange(channel: 1, range: 40), from: "bob", to: state)
        try place("bob", x: 0, in: state)
        try place("alice", x: 5, in: state)
        #expect(hearersOfAlice(in: state) == [2])
        try tell(.leave, from: "alice", to: state)
        try base.join("alice", from: source("alice"), into: state)
        #expect(hearersOfAlice(in: state).isEmpty)
        try place("alice", x: 5, in: state)
        #expect(hearersOfAlice(in: state) == [2])
    }
}
