import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Matches in a cluster of relays, end to end: real `voicechat relay --cluster` processes, a
/// real private etcd, and players as real `voicechat join` processes talking through the relays
/// (`--path relay`, so that voice goes nowhere else).
@Suite struct RelayPlacementTests {
    /// A private etcd, relays registered in it, and the players' processes.
    private final class Cluster {
        let directory: URL
        let secret: URL
        let etcd: [EtcdMember]
        var relays: [String: (port: Int, process: BackgroundCommand)] = [:]
        var players: [String: BackgroundCommand] = [:]

        init(etcd: [EtcdMember]) throws {
            directory = try CommandRunner.temporaryDirectory()
            secret = try CommandRunner.secretFile(in: directory)
            self.etcd = etcd
        }

        deinit {
            for player in players.values { player.stop() }
            for relay in relays.values { relay.process.stop() }
            for member in etcd { member.stop() }
            try? FileManager.default.removeItem(at: directory)
        }

        func startRelay(_ node: String, port: Int, options: [String] = []) throws {
            relays[node] = (
                port,
                try BackgroundCommand(
                    executable: CommandRunner.executable.path,
                    arguments: [
                        "relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", secret.path,
                        "--report-every", "0", "--admin-socket", socket(node), "--duration", "60",
                        "--cluster", etcd.map(\.clientURL).joined(separator: ","), "--node", node,
                        "--advertise", "127.0.0.1:\(port)", "--drain-deadline", "10",
                    ] + options, directory: directory, label: node)
            )
            #expect(relays[node]!.process.waitForOutput("node \(node) of the cluster", seconds: 15))
        }

        /// Waits until every relay sees every other in the cluster.
        func waitForMembership() throws {
            let expected = relays.keys.sorted().map { "/voicechat/nodes/\($0)" }
            let registered = try secondsUntil(within: 10) { try etcd[0].keys(prefix: "/voicechat/nodes/") == expected }
            #expect(registered != nil)
            // Each relay reads the others' records at its next publication.
            usleep(1_200_000)
        }

        func socket(_ node: String) -> String { directory.appendingPathComponent("\(node).sock").path }

        /// `voicechat join` as `name` in `match` through `relays` (the first tried first).
        func join(_ name: String, match: String, through nodes: [String], seconds: Int) throws {
            let token = try CommandRunner.token(secretFile: secret, match: match, participant: name)
            players[name] = try BackgroundCommand(
                executable: CommandRunner.executable.path,
                arguments: [
                    "join", "--relay", nodes.map { "127.0.0.1:\(relays[$0]!.port)" }.joined(separator: ","),
                    "--match", match, "--name", name, "--token", token, "--channel", "all", "--path", "relay",
                    "--input", CommandRunner.fixture("speech-male.wav"), "--output",
                    directory.appendingPathComponent("\(name).wav").path, "--no-console", "--duration", "\(seconds)",
                ], directory: directory, label: name)
        }

        /// `relay-admin matches` of `node`: "match: player, player" lines.
        func matches(on node: String) throws -> String {
            try CommandRunner.run(["relay-admin", "--socket", socket(node), "matches"]).standardOutput
        }

        /// The relay whose `matches` lists `line`, if one does.
        func home(of line: String) throws -> String? {
            try relays.keys.sorted().first { try matches(on: $0).contains(line) }
        }

        /// Alice joins match arena through a (then b), Bob through b (then a); returns the relay
        /// they met on, once both are members there, and the other.
        func meetInArena(seconds: Int) throws -> (home: String, other: String) {
            try join("alice", match: "arena", through: ["a", "b"], seconds: seconds)
            try join("bob", match: "arena", through: ["b", "a"], seconds: seconds)
            let met = try secondsUntil(within: 8) { try home(of: "arena: alice, bob") != nil }
            #expect(met != nil, "\(players.mapValues { $0.standardOutput + $0.standardError })")
            let found = try #require(try home(of: "arena: alice, bob"))
            return (found, found == "a" ? "b" : "a")
        }

        /// Relay a alone in the cluster, with Alice and Bob talking in match "placed" through it.
        func placedMatchOnOneRelay(port: Int, seconds: Int) throws {
            try startRelay("a", port: port)
            try waitForMembership()
            try join("alice", match: "placed", through: ["a"], seconds: seconds)
            try join("bob", match: "placed", through: ["a"], seconds: seconds)
            #expect(try secondsUntil(within: 8) { try matches(on: "a").contains("placed: alice, bob") } != nil)
        }

        /// Alice's and Bob's summaries: heard through the relay, nothing lost.
        func expectNothingLost(sourceLocation: SourceLocation = #_sourceLocation) {
            for (player, summary) in summaries() where player == "alice" || player == "bob" {
                #expect(
                    summary.contains("path relay") && summary.contains("loss 0.0 %"), "\(player): \(summary)",
                    sourceLocation: sourceLocation)
            }
        }

        /// Each player's summary line once it ended.
        func summaries() -> [String: String] {
            players.mapValues { player in
                player.waitForExit(seconds: 20)
                return player.standardOutput.split(separator: "\n").last { $0.hasPrefix("summary:") }.map(String.init)
                    ?? player.standardOutput + player.standardError
            }
        }
    }

    private static func twoRelays(etcd: TestPort, peer: TestPort, a: TestPort, b: TestPort) throws -> Cluster {
        let cluster = try Cluster(etcd: [try EtcdMember(clientPort: etcd.port, peerPort: peer.port)])
        try cluster.startRelay("a", port: a.port)
        try cluster.startRelay("b", port: b.port)
        try cluster.waitForMembership()
        return cluster
    }

    /// Two players joining through different relays meet on one home: the other relay redirects
    /// its player there, the claim is in etcd, and `relay-admin drain` then moves the match to
    /// the other relay and stops the drained one.
    @Test func joinsThroughEitherRelayMeetOnTheMatchsHome() throws {
        let cluster = try Self.twoRelays(
            etcd: .placementEtcdClient, peer: .placementEtcdPeer, a: .placementRelayA, b: .placementRelayB)
        let (home, other) = try cluster.meetInArena(seconds: 10)
        #expect(try cluster.matches(on: other).contains("no matches"))
        #expect(cluster.relays[other]!.process.standardError.contains("redirected joins to the match's home"))
        #expect(try cluster.etcd[0].keys(prefix: "/voicechat/matches/") == ["/voicechat/matches/arena"])
        #expect(try cluster.etcd[0].keys(prefix: "/voicechat/homes/") == ["/voicechat/homes/\(home)/arena"])

        let drain = try CommandRunner.run(["relay-admin", "--socket", cluster.socket(home), "drain"])
        #expect(drain.status == 0, "\(drain.standardError)")
        #expect(drain.standardOutput.contains("draining: moving 1 match"), "\(drain.standardOutput)")
        let moved = try secondsUntil(within: 5) { try cluster.matches(on: other).contains("arena: alice, bob") }
        #expect(moved != nil, "\(cluster.relays[home]!.process.standardError)")
        #expect(cluster.relays[home]!.process.waitForExit(seconds: 5) == 0)
        #expect(try cluster.etcd[0].keys(prefix: "/voicechat/homes/") == ["/voicechat/homes/\(other)/arena"])
        for (player, summary) in cluster.summaries() {
            #expect(summary.contains("path relay"), "\(player): \(summary)")
        }
    }

    /// A home killed outright (SIGKILL): its players rejoin through the other relay, which takes
    /// the match over, within 3 s.
    @Test func aKilledHomesMatchComesBackOnTheOtherRelay() throws {
        let cluster = try Self.twoRelays(
            etcd: .failoverEtcdClient, peer: .failoverEtcdPeer, a: .failoverRelayA, b: .failoverRelayB)
        let (home, other) = try cluster.meetInArena(seconds: 12)
        usleep(1_000_000)
        kill(cluster.relays[home]!.process.process.processIdentifier, SIGKILL)
        let back = try secondsUntil(within: 8) { try cluster.matches(on: other).contains("arena: alice, bob") }
        #expect(back.map { $0 <= 3 } == true, "back after \(back.map { "\($0) s" } ?? "more than 8 s")")
        #expect(cluster.relays[other]!.process.standardError.contains("match=arena"))
        for (player, summary) in cluster.summaries() {
            #expect(summary.contains("path relay"), "\(player): \(summary)")
        }
    }

    /// A home drained by SIGTERM: its players join the other relay before they leave it, so
    /// neither loses a packet; the drained relay exits 0 once they have gone.
    @Test func aDrainedRelayMovesItsMatchWithoutLosingAPacket() throws {
        let cluster = try Self.twoRelays(
            etcd: .drainEtcdClient, peer: .drainEtcdPeer, a: .drainRelayA, b: .drainRelayB)
        let (home, other) = try cluster.meetInArena(seconds: 9)
        usleep(1_000_000)
        let drained = cluster.relays[home]!.process
        kill(drained.process.processIdentifier, SIGTERM)
        #expect(drained.waitForExit(seconds: 6) == 0, "\(drained.standardError)")
        #expect(drained.standardError.contains("moving a match"), "\(drained.standardError)")
        #expect(try cluster.matches(on: other).contains("arena: alice, bob"))
        cluster.expectNothingLost()
    }

    /// etcd frozen: a match already placed goes on (its players lose nothing), a join that needs
    /// placing is told the relay cannot reach its cluster and retries, and gets in within 2 s of
    /// etcd's return.
    @Test func joinsWaitWhileEtcdIsDownAndPlacedMatchesGoOn() throws {
        let cluster = try Cluster(etcd: [
            try EtcdMember(clientPort: TestPort.outageEtcdClient.port, peerPort: TestPort.outageEtcdPeer.port)
        ])
        try cluster.placedMatchOnOneRelay(port: TestPort.outageRelay.port, seconds: 12)

        cluster.etcd[0].pause()
        try cluster.join("carol", match: "waiting", through: ["a"], seconds: 8)
        let carol = cluster.players["carol"]!
        #expect(carol.waitForOutput("the relay cannot reach its cluster", seconds: 5), "\(carol.standardOutput)")
        usleep(2_000_000)
        #expect(!carol.standardOutput.contains("joined;"), "\(carol.standardOutput)")
        cluster.etcd[0].resume()
        let joined = secondsUntil(within: 5) { carol.standardOutput.contains("joined;") }
        #expect(
            joined.map { $0 <= 2 } == true, "joined \(joined.map { "\($0) s" } ?? "not within 5 s") after etcd returned"
        )
        cluster.expectNothingLost()
    }

    /// A match larger than one relay takes: with room for one player of a match each, Alice's
    /// home spills Bob to the other relay, the two relays link up, and the players hear each other
    /// through both (their keys agreed over signalling that spans the relays too).
    @Test func aMatchLargerThanARelayTakesSpansRelaysAndItsPlayersHearEachOther() throws {
        let cluster = try Cluster(etcd: [
            try EtcdMember(clientPort: TestPort.spanEtcdClient.port, peerPort: TestPort.spanEtcdPeer.port)
        ])
        try cluster.startRelay("a", port: TestPort.spanRelayA.port, options: ["--match-players", "1"])
        try cluster.startRelay("b", port: TestPort.spanRelayB.port, options: ["--match-players", "1"])
        try cluster.waitForMembership()
        try cluster.join("alice", match: "arena", through: ["a", "b"], seconds: 9)
        #expect(try secondsUntil(within: 8) { try cluster.home(of: "arena: alice") != nil } != nil)
        let home = try #require(try cluster.home(of: "arena: alice"))
        let other = home == "a" ? "b" : "a"
        try cluster.join("bob", match: "arena", through: [home], seconds: 8)
        let spanned = try secondsUntil(within: 8) { try cluster.matches(on: other).contains("arena: bob") }
        #expect(spanned != nil, "\(cluster.relays[home]!.process.standardError)")
        #expect(
            cluster.relays[home]!.process.standardError.contains("its next players join another relay"),
            "\(cluster.relays[home]!.process.standardError)")
        #expect(
            try cluster.etcd[0].keys(prefix: "/voicechat/parts/") == [
                "/voicechat/parts/arena/a", "/voicechat/parts/arena/b",
            ])
        for (player, summary) in cluster.summaries() {
            let heard = summary.split(separator: "(").dropFirst().first.flatMap { Int($0.split(separator: " ")[2]) }
            #expect(
                summary.contains("path relay") && summary.contains("loss 0.0 %") && (heard ?? 0) > 100,
                "\(player): \(summary)")
        }
    }

    /// A relay holding part of a match drained by SIGTERM: its players move to a relay with room
    /// (a new part, the match's home being full) before they leave it, and nobody loses a packet.
    @Test func aDrainedPartMovesItsPlayersToANewPartWithoutLosingAPacket() throws {
        let cluster = try Cluster(etcd: [
            try EtcdMember(clientPort: TestPort.spanDrainEtcdClient.port, peerPort: TestPort.spanDrainEtcdPeer.port)
        ])
        let ports = ["a": TestPort.spanDrainRelayA, "b": .spanDrainRelayB, "c": .spanDrainRelayC]
        for (node, port) in ports.sorted(by: { $0.key < $1.key }) {
            try cluster.startRelay(node, port: port.port, options: ["--match-players", "1"])
        }
        try cluster.waitForMembership()
        try cluster.join("alice", match: "arena", through: ["a"], seconds: 10)
        #expect(try secondsUntil(within: 8) { try cluster.home(of: "arena: alice") != nil } != nil)
        let home = try #require(try cluster.home(of: "arena: alice"))
        try cluster.join("bob", match: "arena", through: [home], seconds: 9)
        func bobsRelay() throws -> String? {
            try cluster.relays.keys.sorted().first { node in
                try node != home && cluster.matches(on: node).contains("arena: bob")
            }
        }
        #expect(try secondsUntil(within: 8) { try bobsRelay() != nil } != nil)
        let part = try #require(try bobsRelay())
        usleep(1_000_000)
        let drained = cluster.relays[part]!.process
        kill(drained.process.processIdentifier, SIGTERM)
        #expect(drained.waitForExit(seconds: 6) == 0, "\(drained.standardError)")
        let third = try #require(ports.keys.first { $0 != home && $0 != part })
        #expect(try cluster.matches(on: third).contains("arena: bob"), "\(drained.standardError)")
        cluster.expectNothingLost()
    }

    /// One member of a three-member etcd killed: the relay keeps its lease, the match its players,
    /// and a new match is still placed.
    @Test func losingOneOfThreeEtcdMembersChangesNothing() throws {
        let members = try EtcdMember.cluster(ports: [
            (TestPort.tripleEtcdClient1.port, TestPort.tripleEtcdPeer1.port),
            (TestPort.tripleEtcdClient2.port, TestPort.tripleEtcdPeer2.port),
            (TestPort.tripleEtcdClient3.port, TestPort.tripleEtcdPeer3.port),
        ])
        let cluster = try Cluster(etcd: members)
        try cluster.placedMatchOnOneRelay(port: TestPort.tripleRelay.port, seconds: 10)
        members[0].kill()
        usleep(2_500_000)
        try cluster.join("carol", match: "later", through: ["a"], seconds: 4)
        #expect(cluster.players["carol"]!.waitForOutput("joined;", seconds: 4))
        #expect(!cluster.relays["a"]!.process.standardError.contains("lease lapsed"))
        cluster.expectNothingLost()
    }
}
