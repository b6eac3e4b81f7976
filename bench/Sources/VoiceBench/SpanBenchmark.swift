import ArgumentParser
import Foundation
import NIOCore
import VoiceWire

/// `bench/run span`: one match larger than a relay, spanning three relays of a cluster, on a
/// positional channel.
struct SpanBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "span",
        abstract:
            "One positional match spanning three relays of a cluster: packets missed in range, between relays, and the extra hop.",
        discussion: """
            Real processes on loopback: three etcd members and three `voicechat relay --cluster` processes at \
            their defaults but for --match-players, set to a third of the players (said in the output) so \
            that the match needs all three. The players are the engine's own relay client, each on a \
            loopback address of its own, in the proximity benchmark's world (groups walking a square map, \
            each player telling its relay where it stands --position-hz times a second, everyone hearing \
            channel 1 within --range). They join squad by squad (a group's players one after another, as a \
            game's squads do) through a relay chosen at random, so the relays fill in turn; --talkers of \
            them talk (a datagram every 20 ms with the talker, the tick and the time sent). A listener is in \
            range of a datagram when, by the positions reported when it was sent and 50 ms before, it \
            stands within --range of the talker; every such datagram must reach it. Packets between relays \
            are the relays' own count, against what sending every talker's voice to every other relay \
            would cost.
            """)

    @Option(help: "Players in the match.") var players = 600
    @Option(help: "Relays of the cluster.") var relays = 3
    @Option(help: "Groups (squads) they walk in.") var groups = 24
    @Option(help: "Players who talk.") var talkers = 60
    @Option(help: "Side of the square map, m.") var map: Float = 1000
    @Option(help: "Hearing range of the positional channel, m.") var range: Float = 40
    @Option(help: "Radius a group's players wander within around the group's centre, m.") var spread: Float = 30
    @Option(help: "Walking speed, m/s.") var speed: Float = 1.4
    @Option(help: "Positions each player reports per second.") var positionHz = 2
    @Option(help: "Seconds measured.") var seconds = 20
    @Option(help: "Joins started per second.") var joinRate = 100.0
    @Option(help: "Seed of the walk.") var seed: UInt64 = 7
    @Flag(help: "Players join in random order, not squad by squad (every relay then holds part of every squad).")
    var randomJoinOrder = false
    @Option(help: "First of the loopback ports used (etcd's six, then the relays').") var basePort = 26_300

    func validate() throws {
        guard (2...3_000).contains(players), (2...8).contains(relays), (1...players).contains(groups),
            (1...players).contains(talkers), (1...10).contains(positionHz), (5...600).contains(seconds), joinRate > 0,
            map > 0, range > 0, spread >= 0, speed >= 0, map.isFinite, range.isFinite, spread.isFinite,
            speed.isFinite, (1024...60_000).contains(basePort)
        else {
            throw ValidationError(
                "--players 2…3000, --relays 2…8, --groups and --talkers 1…--players, --position-hz 1…10, "
                    + "--seconds 5…600, --join-rate > 0, --map and --range > 0, --spread and --speed ≥ 0, --base-port")
        }
    }

    func run() throws {
        let report = try runBlocking { [self] in try await SpanRun(options: self).run() }
        if !report.finish() { throw ExitCode.failure }
    }
}

/// One run of `bench/run span`.
struct SpanRun {
    let options: SpanBenchmark
    let secretText = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    var secret: RelaySecret { try! RelaySecret(bytes: Array(secretText.utf8)) }

    func run() async throws -> BenchmarkReport {
        var report = BenchmarkReport(bench: "span")
        let perRelay = (options.players + options.relays - 1) / options.relays
        let squadSize = (options.players + options.groups - 1) / options.groups
        let talkerEvery = max(1, options.players / options.talkers)
        print(
            "settings: the relays' defaults but --match-players \(perRelay) (default 64); \(options.players) players "
                + "in \(options.groups) squads on \(Int(options.map)) m × \(Int(options.map)) m, range \(options.range) m, "
                + "spread \(options.spread) m, \(options.speed) m/s, positions at \(options.positionHz) Hz, "
                + "\(options.talkers) talking, seed \(options.seed), joining "
                + (options.randomJoinOrder ? "in random order" : "squad by squad"))
        let processes = try ClusterProcesses(basePort: options.basePort, secretText: secretText)
        defer { processes.stopAll() }
        try processes.startEtcd(members: 3)
        let nodes = (0..<options.relays).map { "relay\($0)" }
        for (index, node) in nodes.enumerated() {
            try processes.startRelay(
                node, port: options.basePort + 10 + index, options: ["--match-players", "\(perRelay)"])
        }
        try processes.waitForNodes(options.relays, seenBy: nodes[0])
        // Each relay reads the others' records at its next publication.
        try await Task.sleep(for: .milliseconds(1_200))

        let walk = GroupWalk(
            players: options.players, groups: options.groups, map: options.map, spread: options.spread,
            speed: options.speed, seed: options.seed)
        // The walk puts player p in group p % groups: a squad is every groups-th player.
        let talkers = Set((0..<options.players).filter { ($0 / options.groups) % talkerEvery == 0 })
        let players = SpanPlayers(
            count: options.players, talkers: talkers, walk: walk, range: options.range, threads: 2)
        let order =
            options.randomJoinOrder
            ? (0..<options.players).shuffled()
            : (0..<options.players).sorted { ($0 % options.groups, $0) < ($1 % options.groups, $1) }
        let ports = nodes.map { processes.relays[$0]!.port }
        let pace = Duration.nanoseconds(Int64(1e9 / options.joinRate))
        for player in order {
            try await players.join(player, relays: ports.shuffled(), secret: secret)
            try await Task.sleep(for: pace)
        }
        let deadline = Date().addingTimeInterval(60)
        while players.joined < options.players, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        report.add(
            "players joined", Double(players.joined), unit: "players", target: .atLeast(Double(options.players)))
        let load = nodes.map { processes.players(on: $0) }
        print("players per relay: \(load) (squads of about \(squadSize))")

        let tasks = players.start(positionHz: options.positionHz)
        // Positions and the relays' links settle before measuring.
        try await Task.sleep(for: .seconds(3))
        let before = peerVoice(processes, nodes)
        let dropsBefore = processes.drops()
        let cpuBefore = MachineCPU.now()
        let udpDropsBefore = MachineCPU.udpReceiveDrops()
        let started = Date()
        let sentBefore = players.sent
        players.openWindow(seconds: Double(options.seconds))
        try await Task.sleep(for: .seconds(options.seconds))
        // The talking falls behind its 20 ms when the machine is busy: the window ends at its last tick.
        while !players.windowSent { try await Task.sleep(for: .milliseconds(20)) }
        let sentInWindow = players.sent - sentBefore
        let after = peerVoice(processes, nodes)
        let drops = processes.drops().merging(dropsBefore, uniquingKeysWith: -).filter { $0.value > 0 }
        let elapsed = Date().timeIntervalSince(started)
        let cpu = MachineCPU.now().since(cpuBefore)
        // Datagrams still on their way.
        try await Task.sleep(for: .seconds(1))
        for task in tasks { task.cancel() }
        guard let window = players.closeWindow() else { throw ValidationError("the window closed early") }
        let nodeOf = self.nodeOf(processes, nodes)
        await players.shutdown()

        report.add("machine CPU busy while measuring (all processes)", cpu.busy * 100, unit: "%")
        for (reason, count) in drops.sorted(by: { $0.key < $1.key }) {
            report.add("the relays dropped (\(reason))", Double(count), unit: "datagrams")
        }
        report.add(
            "datagrams the kernel dropped (receive buffers full)",
            Double(MachineCPU.udpReceiveDrops() - udpDropsBefore), unit: "datagrams")
        var expected = 0
        var missed = 0
        var beyond = 0
        var local: [Double] = []
        var crossing: [Double] = []
        // Of the missed: talker and listener on two relays; in range for the 200 ms before too.
        var missedCrossing = 0
        var missedStanding = 0
        var missedTicks: Set<Int> = []
        var missedTalkers: Set<Int> = []
        for listener in 0..<options.players {
            let wanted = window.expected[listener] ?? []
            let heard = window.heard[listener] ?? [:]
            expected += wanted.count
            for key in wanted where heard[key] == nil {
                missed += 1
                let talker = Int(key >> 32)
                if nodeOf[talker] == nil || nodeOf[talker] != nodeOf[listener] { missedCrossing += 1 }
                if wanted.contains(key - 10) { missedStanding += 1 }
                missedTicks.insert(Int(key & 0xFFFF_FFFF) - window.firstTick)
                missedTalkers.insert(talker)
            }
            beyond += heard.keys.filter { !wanted.contains($0) }.count
            for (key, delay) in heard {
                let talker = Int(key >> 32)
                if nodeOf[talker] != nil, nodeOf[talker] == nodeOf[listener] {
                    local.append(Double(delay) / 1e6)
                } else {
                    crossing.append(Double(delay) / 1e6)
                }
            }
        }
        let sentDatagrams = Double(sentInWindow)
        print(
            String(
                format: "%.1f listeners in range per datagram; %d copies heard beyond the range (within its margin, "
                    + "or in range only lately)", Double(expected) / max(1, sentDatagrams), beyond))
        report.add(
            "datagrams a listener in range missed", Double(missed), unit: "datagrams", baseline: Double(expected),
            target: .atMost(0))
        if missed > 0 {
            print(
                "missed in \(missedTicks.count) of the window's \(window.ticks) ticks (\(missedTicks.sorted().prefix(20))…), "
                    + "from \(missedTalkers.count) talkers")
        }
        report.add("of those, talker and listener on two relays", Double(missedCrossing), unit: "datagrams")
        report.add("of those, in range for the 200 ms before as well", Double(missedStanding), unit: "datagrams")
        let between = Double(after.sent - before.sent) / elapsed
        let allToAll = sentDatagrams / elapsed * Double(options.relays - 1)
        report.add("voice packets between relays", between, unit: "packets/s", baseline: allToAll)
        report.add(
            "fewer than sending every talker to every relay", allToAll / max(1, between), unit: "×",
            target: .atLeast(5))
        let (localSorted, crossingSorted) = (local.sorted(), crossing.sorted())
        report.add(
            "delay, talker and listener on one relay, p50", percentile(localSorted, 0.5), unit: "ms")
        report.add("delay, talker and listener on one relay, p99", percentile(localSorted, 0.99), unit: "ms")
        report.add(
            "delay across two relays, p50", percentile(crossingSorted, 0.5), unit: "ms",
            baseline: percentile(localSorted, 0.5))
        report.add(
            "delay across two relays, p99", percentile(crossingSorted, 0.99), unit: "ms",
            baseline: percentile(localSorted, 0.99))
        report.add(
            "delay the extra hop adds, p99", percentile(crossingSorted, 0.99) - percentile(localSorted, 0.99),
            unit: "ms")
        report.add("delay, longest", (crossingSorted + localSorted).max() ?? 0, unit: "ms")
        report.add("copies across two relays", Double(crossing.count), unit: "copies", baseline: Double(local.count))
        return report
    }

    /// The relays' count of voice packets sent to and received from the others, summed.
    private func peerVoice(_ processes: ClusterProcesses, _ nodes: [String]) -> (sent: Int, received: Int) {
        var total = (sent: 0, received: 0)
        for node in nodes {
            for line in processes.adminLines(node, "stats") where line.contains("sent to other relays") {
                let numbers = line.split(separator: " ").compactMap { Int($0) }
                if numbers.count >= 2 { total = (total.sent + numbers[0], total.received + numbers[1]) }
            }
        }
        return total
    }

    /// Which relay each player is on, by `relay-admin matches` ("world: p0, p1, …").
    private func nodeOf(_ processes: ClusterProcesses, _ nodes: [String]) -> [Int: String] {
        var nodeOf: [Int: String] = [:]
        for node in nodes {
            for line in processes.adminLines(node, "matches") where line.hasPrefix(SpanPlayers.match + ":") {
                for name in line.dropFirst(SpanPlayers.match.count + 1).split(separator: ",") {
                    let trimmed = name.trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix("p"), let player = Int(trimmed.dropFirst()) { nodeOf[player] = node }
                }
            }
        }
        return nodeOf
    }
}
