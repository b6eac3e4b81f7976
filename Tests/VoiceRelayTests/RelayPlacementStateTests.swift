import Logging
import NIOCore
import Testing
import VoiceCore
import VoiceWire

@testable import VoiceRelay

/// A relay of a cluster as a state machine: joins wait for the cluster's answer, go on here, are
/// redirected or refused; matches are released when empty; a draining relay moves its matches.
/// No etcd here: the answers are given by the test (the cluster itself is tested with real etcd
/// and relay processes in `RelayPlacementTests`).
@Suite struct RelayPlacementStateTests {
    let relay = RelayStateTests()
    static let match = RelayStateTests.match

    func clusteredState() -> RelayState {
        let state = relay.makeState()
        state.placement.isClustered = true
        return state
    }

    static func placements(_ decisions: RelayStateTests.Decisions) -> [String] {
        decisions.actions.compactMap { action in
            switch action {
            case .place(let match): "place \(match)"
            case .moveAway(let match): "move \(match)"
            case .release(let match): "release \(match)"
            default: nil
            }
        }
    }

    static func messages(_ decisions: RelayStateTests.Decisions) -> [RelayMessage] {
        RelayStateTests.messages(decisions).map(\.1)
    }

    @Test func aJoinForAMatchNotHeldWaitsForTheClusterAndIsAskedOnce() throws {
        let state = clusteredState()
        let first = try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        #expect(Self.placements(first) == ["place \(Self.match)"])
        #expect(Self.messages(first).isEmpty)
        // The same client repeating itself, and another player, wait for the same answer.
        let again = try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state, now: 250_000_000)
        let bob = try relay.join("bob", from: .udp(RelayStateTests.address(2)), into: state, now: 260_000_000)
        #expect(Self.placements(again).isEmpty && Self.placements(bob).isEmpty)
        #expect(state.participantCount == 0)

        state.placed(Self.match, .here, now: 300_000_000)
        let answered = RelayStateTests.take(state)
        let joined = Self.messages(answered).filter { if case .joined = $0 { true } else { false } }
        #expect(joined.count == 2)
        #expect(state.participantCount == 2)
        // Held here now: the next join goes on at once.
        let carol = try relay.join("carol", from: .udp(RelayStateTests.address(3)), into: state, now: 400_000_000)
        #expect(Self.placements(carol).isEmpty)
        #expect(Self.messages(carol).contains(.joined(mediaID: RelayStateTests.mediaID("carol"))))
    }

    @Test func aJoinForAMatchHomedElsewhereIsRedirectedThere() throws {
        let state = clusteredState()
        try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        try relay.join("alice", from: .tcp(RelayConnectionID(rawValue: 9)), into: state)
        state.placed(Self.match, .elsewhere(node: "b", address: "10.0.0.2:7700"), now: 1)
        let answered = RelayStateTests.take(state)
        #expect(Self.messages(answered) == [.redirect(address: "10.0.0.2:7700"), .redirect(address: "10.0.0.2:7700")])
        #expect(state.participantCount == 0)
    }

    @Test func aJoinTheClusterCannotPlaceIsRefusedAsTemporary() throws {
        let state = clusteredState()
        try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        state.placed(Self.match, .unavailable(reason: "etcd: unreachable"), now: 1)
        let answered = RelayStateTests.take(state)
        #expect(Self.messages(answered) == [.refused(.clusterUnavailable)])
        #expect(RelayRefusal.clusterUnavailable.isTemporary)
        // Asked again at the next attempt.
        let retry = try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state, now: 250_000_000)
        #expect(Self.placements(retry) == ["place \(Self.match)"])
    }

    @Test func theLastMemberLeavingReleasesTheMatch() throws {
        let state = clusteredState()
        try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        state.placed(Self.match, .here, now: 1)
        _ = RelayStateTests.take(state)
        state.received(
            ByteBuffer(bytes: try RelayMessage.leave.serialized()), from: .udp(RelayStateTests.address(1)), now: 2)
        #expect(Self.placements(RelayStateTests.take(state)) == ["release \(Self.match)"])
        #expect(state.placement.home.isEmpty)
    }

    @Test func aDrainingRelayTellsItsPlayersToMoveAndRedirectsNewcomers() throws {
        let state = clusteredState()
        try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        try relay.join("bob", from: .udp(RelayStateTests.address(2)), into: state)
        state.placed(Self.match, .here, now: 1)
        _ = RelayStateTests.take(state)

        state.beginDrain()
        #expect(Self.placements(RelayStateTests.take(state)) == ["move \(Self.match)"])
        state.movedAway(Self.match, .elsewhere(node: "b", address: "10.0.0.2:7700"))
        let told = RelayStateTests.take(state)
        #expect(Self.messages(told) == [.moving(address: "10.0.0.2:7700"), .moving(address: "10.0.0.2:7700")])
        // The members stay (and are forwarded to) until they leave; a newcomer goes to the new home.
        #expect(state.participantCount == 2)
        let carol = try relay.join("carol", from: .udp(RelayStateTests.address(3)), into: state, now: 2)
        #expect(Self.messages(carol) == [.redirect(address: "10.0.0.2:7700")])
        let alice = try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state, now: 3)
        #expect(Self.messages(alice).contains(.joined(mediaID: RelayStateTests.mediaID("alice"))))
        // The claim is the new home's now: nothing is released when the players go.
        for port in [1, 2] {
            state.received(
                ByteBuffer(bytes: try RelayMessage.leave.serialized()), from: .udp(RelayStateTests.address(port)),
                now: 4)
        }
        #expect(Self.placements(RelayStateTests.take(state)).isEmpty)
        #expect(state.hasDrained)
    }

    /// Make before break: the old home forwards as before until every member says it joined the
    /// new home, then lets them all go at once.
    @Test func theOldHomeLetsGoOnceEveryMemberHasJoinedTheNewOne() throws {
        let state = clusteredState()
        try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        try relay.join("bob", from: .udp(RelayStateTests.address(2)), into: state)
        state.placed(Self.match, .here, now: 1)
        state.beginDrain()
        state.movedAway(Self.match, .elsewhere(node: "b", address: "10.0.0.2:7700"))
        _ = RelayStateTests.take(state)
        let arrived = ByteBuffer(bytes: try RelayMessage.moving(address: "10.0.0.2:7700").serialized())
        state.received(arrived, from: .udp(RelayStateTests.address(1)), now: 2)
        #expect(RelayStateTests.take(state).isEmpty)
        // Alice has moved, Bob not yet: Bob's voice still reaches her here.
        state.received(RelayStateTests.envelope(from: "bob"), from: .udp(RelayStateTests.address(2)), now: 3)
        #expect(RelayStateTests.forwarded(RelayStateTests.take(state)).udp == [1])
        state.received(arrived, from: .udp(RelayStateTests.address(2)), now: 4)
        let letGo = RelayStateTests.take(state)
        #expect(Self.messages(letGo) == [.kicked(.moved), .kicked(.moved)])
        #expect(state.participantCount == 0)
        #expect(state.hasDrained)
    }

    @Test func aMoveTheClusterCannotMakeIsAskedAgainAtTheNextSweep() throws {
        let state = clusteredState()
        try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        state.placed(Self.match, .here, now: 1)
        state.beginDrain()
        _ = RelayStateTests.take(state)
        state.movedAway(Self.match, .unavailable(reason: "no live relay takes new matches"))
        #expect(Self.messages(RelayStateTests.take(state)).isEmpty)
        state.sweep(now: 500_000_000)
        #expect(Self.placements(RelayStateTests.take(state)) == ["move \(Self.match)"])
    }

    @Test func aRelayOnItsOwnHoldsEveryMatchAtOnce() throws {
        let state = relay.makeState()
        let joined = try relay.join("alice", from: .udp(RelayStateTests.address(1)), into: state)
        #expect(Self.placements(joined).isEmpty)
        #expect(state.participantCount == 1)
    }
}
