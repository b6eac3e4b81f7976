import Testing
import VoiceCore
import VoiceTransport
import VoiceWire

@Suite("PathSelector in virtual time")
struct PathSelectorTests {
    let configuration = PathSelectorConfiguration()

    @Test func directPairIsFoundQuicklyWithItsRoundTripTime() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.run(until: .milliseconds(1_000))
        #expect(link.a.activeRoute == .direct(link.addressesB[0]))
        #expect(link.b.activeRoute == .direct(link.addressesA[0]))
        #expect(link.a.state == .connected(.direct(link.addressesB[0])))
        let firstChange = try #require(link.changes[.a]?.first)
        #expect(firstChange.from == nil)
        #expect(firstChange.time < .milliseconds(100))
        let roundTrip = try #require(link.a.roundTripTime)
        #expect(abs(roundTrip - 2 * SimulatedPathLink.latency.milliseconds) < 10)
        #expect(link.voiceArrivalsAtB.allSatisfy { $0.route == .direct(link.addressesA[0]) })
    }

    @Test func blockedDirectFallsBackToAppCarriedAfterTheCheckTime() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.block(link: 0)
        link.run(until: .milliseconds(1_900))
        #expect(link.a.activeRoute == nil)
        #expect(link.a.state == .checking)
        link.run(until: .milliseconds(4_000))
        #expect(link.a.activeRoute == .appCarried)
        #expect(link.b.activeRoute == .appCarried)
        #expect(link.a.state == .connected(.appCarried))
        let change = try #require(link.changes[.a]?.first)
        #expect(change.time >= configuration.directCheckTimeout)
        #expect(change.time < configuration.directCheckTimeout + .milliseconds(100))
        // The direct route keeps being probed, slowly, in case it starts to work.
        let directProbes = link.probesSent[.a, default: []].filter { $0 == .direct(link.addressesB[0]) }.count
        #expect(directProbes >= 20 + 3)
    }

    /// With no direct candidate to check (the peer offered none), app-carried is taken at once, not
    /// after the direct check time.
    @Test func withNoDirectCandidateAppCarriedIsTakenAtOnce() throws {
        var link = try SimulatedPathLink(links: 0, appCarried: true)
        link.run(until: .milliseconds(300))
        #expect(link.a.activeRoute == .appCarried)
        #expect(link.b.activeRoute == .appCarried)
        let change = try #require(link.changes[.a]?.first)
        #expect(change.time < .milliseconds(100))
    }

    /// A side with a kind forced does not answer probes on another kind, so the other side, left
    /// to choose, settles on the forced kind too (they reported different paths before).
    @Test func aForcedKindIsWhatTheOtherSideSettlesOn() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.a.setPreferred(.appCarried)
        link.run(until: .milliseconds(4_000))
        #expect(link.a.activeRoute == .appCarried)
        #expect(link.b.activeRoute == .appCarried)
        #expect(!link.voiceArrivalsAtB.isEmpty)
        #expect(link.voiceArrivalsAtB.allSatisfy { $0.route == .appCarried })
    }

    @Test func deadDirectRouteFailsOverToAppCarriedWithinASecond() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.run(until: .milliseconds(3_000))
        #expect(link.a.activeRoute == .direct(link.addressesB[0]))
        link.block(link: 0)
        link.run(until: .milliseconds(6_000))
        #expect(link.a.activeRoute == .appCarried)
        #expect(link.b.activeRoute == .appCarried)
        #expect(link.a.state == .failedOver(from: .direct(link.addressesB[0]), to: .appCarried))
        let lastOld = try #require(link.voiceArrivalsAtB.last { $0.route == .direct(link.addressesA[0]) })
        let firstNew = try #require(link.voiceArrivalsAtB.first { $0.route == .appCarried })
        #expect(firstNew.time - lastOld.time < .milliseconds(1_000))
        #expect(firstNew.time > lastOld.time)
    }

    @Test func recoveredDirectRouteTakesVoiceBackAfterRepeatedReplies() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.run(until: .milliseconds(3_000))
        link.block(link: 0)
        link.run(until: .milliseconds(6_000))
        #expect(link.a.activeRoute == .appCarried)
        link.unblock(link: 0)
        link.run(until: .milliseconds(9_000))
        #expect(link.a.activeRoute == .direct(link.addressesB[0]))
        #expect(link.b.activeRoute == .direct(link.addressesA[0]))
        #expect(link.a.state == .connected(.direct(link.addressesB[0])))
        let back = try #require(link.changes[.a]?.last)
        #expect(back.from == .appCarried)
        // Not on the first reply: recoveryReplies replies, keepaliveInterval apart, are needed.
        #expect(back.time >= .milliseconds(6_000) + configuration.keepaliveInterval * 2)
        #expect(back.time < .milliseconds(8_000))
        #expect(link.changes[.a]?.count == 3)
    }

    @Test func deadDirectPairFailsOverToAnotherDirectPair() throws {
        var link = try SimulatedPathLink(links: 2, appCarried: false)
        link.run(until: .milliseconds(2_000))
        #expect(link.a.activeRoute == .direct(link.addressesB[0]))
        link.block(link: 0)
        link.run(until: .milliseconds(4_000))
        #expect(link.a.activeRoute == .direct(link.addressesB[1]))
        // The same kind as before: nothing better was lost.
        #expect(link.a.state == .connected(.direct(link.addressesB[1])))
        #expect(link.longestVoiceGapAtB(from: .milliseconds(1_000), to: .milliseconds(4_000)) < .milliseconds(1_000))
    }

    @Test func oneWayFailureIsDetectedByMissingReplies() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.run(until: .milliseconds(3_000))
        link.block(link: 0, from: [.a])
        link.run(until: .milliseconds(6_000))
        #expect(link.a.activeRoute == .appCarried)
        #expect(link.b.activeRoute == .appCarried)
        #expect(link.longestVoiceGapAtB(from: .milliseconds(2_000), to: .milliseconds(6_000)) < .milliseconds(1_100))
    }

    @Test func peerIsGoneAfterThePeerTimeoutWithNoRoute() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.run(until: .milliseconds(2_000))
        link.block(link: 0)
        link.block(link: nil)
        link.run(until: .milliseconds(3_000))
        #expect(link.a.activeRoute == nil)
        #expect(link.a.state == .unreachable)
        #expect(link.changes[.a]?.last?.to == nil)
        link.run(until: .milliseconds(11_500))
        #expect(link.peerGoneAt[.a] == nil)
        link.run(until: .milliseconds(13_000))
        let goneAt = try #require(link.peerGoneAt[.a])
        #expect(goneAt >= .milliseconds(2_000) + configuration.peerTimeout - .milliseconds(300))
        #expect(link.a.state == .gone)
        #expect(link.peerGoneAt[.b] != nil)
        #expect(link.a.tick(now: .milliseconds(14_000)).isEmpty)
    }

    @Test func peerThatNeverAnswersIsGoneAfterThePeerTimeout() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: false)
        link.block(link: 0)
        link.run(until: .milliseconds(3_000))
        #expect(link.a.state == .unreachable)
        link.run(until: .milliseconds(10_500))
        #expect(link.peerGoneAt[.a] == configuration.peerTimeout)
    }

    @Test func forcedAppCarriedIgnoresAWorkingDirectRoute() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.a.setPreferred(.appCarried)
        link.b.setPreferred(.appCarried)
        link.run(until: .milliseconds(1_000))
        #expect(link.a.activeRoute == .appCarried)
        #expect(link.probesSent[.a, default: []].allSatisfy { $0 == .appCarried })
        link.a.setPreferred(nil)
        link.b.setPreferred(nil)
        link.run(until: .milliseconds(3_000))
        #expect(link.a.activeRoute == .direct(link.addressesB[0]))
    }

    @Test func forcedDirectNeverFallsBackToAppCarried() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.a.setPreferred(.direct)
        link.b.setPreferred(.direct)
        link.block(link: 0)
        link.run(until: .milliseconds(5_000))
        #expect(link.a.activeRoute == nil)
        #expect(link.a.state == .unreachable)
        #expect(link.voiceArrivalsAtB.isEmpty)
    }

    @Test func forcingAnotherKindMidCallMovesVoiceAtTheNextTick() throws {
        var link = try SimulatedPathLink(links: 1, appCarried: true)
        link.run(until: .milliseconds(1_000))
        #expect(link.a.activeRoute == .direct(link.addressesB[0]))
        link.a.setPreferred(.appCarried)
        link.run(until: .milliseconds(1_010))
        #expect(link.a.activeRoute == .appCarried)
        #expect(link.a.state == .connected(.appCarried))
    }

    @Test func relayIsUsedWhenDirectAndAppFail() throws {
        let peer = try PeerAddress(parsing: "192.0.2.9:7000")
        var selector = PathSelector(localCandidates: [], appCarriedAvailable: false, now: 0)
        selector.addRemoteCandidates([peer], now: 0)
        selector.setRelayAvailable(.relayUDP, true, now: 0)
        var now: MediaTime = 0
        while now < .milliseconds(3_000) {
            now += .milliseconds(10)
            for action in selector.tick(now: now) {
                if case .sendProbe(let probe, .relayUDP) = action {
                    selector.receivedProbeReply(probe, on: .relayUDP, now: now + .milliseconds(30))
                }
            }
        }
        #expect(selector.activeRoute == .relayUDP)
        selector.setRelayAvailable(.relayUDP, false, now: now)
        _ = selector.tick(now: now + .milliseconds(10))
        #expect(selector.activeRoute == nil)
        #expect(selector.routes == [.direct(peer)])
    }

    @Test func unmatchedRepliesDoNotMakeARouteUsable() throws {
        let peer = try PeerAddress(parsing: "192.0.2.9:7000")
        var selector = PathSelector(localCandidates: [], appCarriedAvailable: false, now: 0)
        selector.addRemoteCandidates([peer], now: 0)
        let actions = selector.tick(now: .milliseconds(10))
        guard case .sendProbe(let sent, .direct(peer)) = try #require(actions.first) else {
            Issue.record("expected a probe to \(peer), got \(actions)")
            return
        }
        let other = try PeerAddress(parsing: "192.0.2.10:7000")
        // Unknown transaction; the right transaction on the wrong route.
        selector.receivedProbeReply(
            ConnectivityProbe(transaction: sent.transaction &+ 99, sentAt: 0), on: .direct(peer),
            now: .milliseconds(20))
        selector.receivedProbeReply(sent, on: .direct(other), now: .milliseconds(20))
        #expect(selector.unmatchedReplies == 2)
        #expect(!selector.isAnswering(.direct(peer), now: .milliseconds(20)))
        selector.receivedProbeReply(sent, on: .direct(peer), now: .milliseconds(30))
        #expect(selector.isAnswering(.direct(peer), now: .milliseconds(30)))
        #expect(selector.roundTripTime(on: .direct(peer)) == 20)
        // The same reply again is a duplicate.
        selector.receivedProbeReply(sent, on: .direct(peer), now: .milliseconds(40))
        #expect(selector.unmatchedReplies == 3)
    }

    @Test func probeFromAnUnknownAddressIsAnsweredAndBecomesARoute() throws {
        let reflexive = try PeerAddress(parsing: "198.51.100.4:40000")
        var selector = PathSelector(localCandidates: [], appCarriedAvailable: false, now: 0)
        let probe = ConnectivityProbe(transaction: 7, sentAt: 123)
        let actions = selector.receivedProbe(probe, on: .direct(reflexive), now: .milliseconds(5))
        #expect(actions == [.sendProbeReply(probe, .direct(reflexive))])
        #expect(selector.routes == [.direct(reflexive)])
        // A probe on app-carried when this side has no app channel cannot be answered.
        #expect(selector.receivedProbe(probe, on: .appCarried, now: .milliseconds(6)).isEmpty)
    }

    @Test func remoteCandidatesAreBoundedAndDeduplicated() throws {
        var configuration = PathSelectorConfiguration()
        configuration.maximumDirectRoutes = 4
        let local = try PeerAddress(parsing: "10.0.0.1:5000")
        var selector = PathSelector(
            configuration: configuration, localCandidates: [local], appCarriedAvailable: false, now: 0)
        let remote = try (0..<10).map { try PeerAddress(host: "10.0.1.\($0 % 6)", port: 5000) }
        let ipv6 = try PeerAddress(parsing: "[2001:db8::1]:5000")
        selector.addRemoteCandidates(remote + [ipv6], now: 0)
        #expect(selector.routes.count == 4)
        #expect(!selector.routes.contains(.direct(ipv6)))
    }

    @Test func sameInputGivesTheSameActions() throws {
        var first = try SimulatedPathLink(links: 2, appCarried: true)
        var second = try SimulatedPathLink(links: 2, appCarried: true)
        for index in [0, 1] {
            first.run(until: .milliseconds(1_500 * Double(index + 1)))
            second.run(until: .milliseconds(1_500 * Double(index + 1)))
            first.block(link: index)
            second.block(link: index)
        }
        first.run(until: .milliseconds(6_000))
        second.run(until: .milliseconds(6_000))
        #expect(first.log == second.log)
        #expect(first.a.activeRoute == .appCarried)
    }
}
