import ArgumentParser
import Foundation
import NIOCore
import VoiceCluster
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

/// `bench/run cluster`: relays as a cluster on etcd, end to end.
struct ClusterBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Placement, failover, drain and etcd's failures in a cluster of three relays on a three-member etcd.",
        discussion: """
            Real processes on loopback: three etcd members, three `voicechat relay --cluster` processes at \
            their defaults, and players that are the engine's own relay client (`RelayClient`: it follows \
            redirects and moves, and tries the next relay when one goes), each on a loopback address of its \
            own, talking in matches (a datagram every --interval-ms with the sender and its tick, forwarded \
            by the relays by its clear header; nothing is encoded or sealed, as the relays never open it). \
            Placement: the matches' players join through a relay chosen at random (the others as its \
            fallbacks), against the same joins to one `voicechat relay` without a cluster, run first. Then \
            the busiest node is killed (SIGKILL), the next busiest drained (SIGTERM), one etcd member killed, \
            and the two left frozen (SIGSTOP) for 10 s while new players try to join.
            """)

    @Option(help: "Matches.") var matches = 300
    @Option(help: "Players per match.") var players = 4
    @Option(help: "Milliseconds between a player's datagrams (voice: 20).") var intervalMs = 20
    @Option(help: "Joins started per second.") var joinRate = 200.0
    @Option(help: "First of the loopback ports used (etcd's six, then the relays').") var basePort = 26_100

    func validate() throws {
        guard matches > 0, (2...64).contains(players), (5...1000).contains(intervalMs), joinRate > 0,
            (1024...60_000).contains(basePort)
        else { throw ValidationError("--matches, --players 2…64, --interval-ms 5…1000, --join-rate > 0, --base-port") }
    }

    func run() throws {
        let report = try runBlocking { [self] in try await ClusterRun(options: self).run() }
        if !report.finish() { throw ExitCode.failure }
    }
}

/// One run of `bench/run cluster`.
struct ClusterRun {
    let options: ClusterBenchmark
    /// The relays' secret file holds this text; its bytes are the key.
    let secretText = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    var secret: RelaySecret { try! RelaySecret(bytes: Array(secretText.utf8)) }

    private var count: Int { options.matches * options.players }

    func run() async throws -> BenchmarkReport {
        var report = BenchmarkReport(bench: "cluster")
        print(
            "\(options.matches) matches of \(options.players) players, a datagram each every \(options.intervalMs) ms")
        print("voice gaps are the longest silence a listener heard from a talker of its match, less the interval")

        // The baseline: the same joins to one relay on its own.
        let solo = try await joinAll(clustered: false)
        let baseline = solo.joinSeconds.sorted()
        await solo.players.shutdown()
        solo.processes.stopAll()

        let run = try await joinAll(clustered: true)
        defer { run.processes.stopAll() }
        let players = run.players
        let processes = run.processes
        let joins = run.joinSeconds.sorted()
        // The floor of a match's first join in a cluster: one claim, a transaction etcd commits
        // to a majority of its members' disks, measured now, under the players' load.
        let claims = try await claimTransactions(etcd: processes.etcdURLs, count: 200).sorted()
        report.add("etcd claim transaction p50", percentile(claims, 0.5) * 1000, unit: "ms")
        report.add("etcd claim transaction p99", percentile(claims, 0.99) * 1000, unit: "ms")
        report.add("placement: players joined", Double(joins.count), unit: "players", target: .atLeast(Double(count)))
        report.add(
            "placement: join time p50", percentile(joins, 0.5) * 1000, unit: "ms",
            baseline: percentile(baseline, 0.5) * 1000)
        report.add(
            "placement: join time p99", percentile(joins, 0.99) * 1000, unit: "ms",
            baseline: percentile(baseline, 0.99) * 1000,
            target: .atMost(1.5 * percentile(baseline, 0.99) * 1000))
        let load = processes.relays.keys.sorted().map { processes.players(on: $0) }
        print("players per node: \(load)")
        report.add(
            "placement: busiest over least busy node", Double(load.max() ?? 0) / Double(max(1, load.min() ?? 0)),
            unit: "ratio", target: .atMost(1.2))

        // A node killed outright.
        let victim = busiest(processes)
        let orphaned = members(of: processes.matches(on: victim))
        print("killing \(victim), home to \(processes.matches(on: victim).count) matches")
        players.openWindow(seconds: 9)
        let killedAt = NIODeadline.now().uptimeNanoseconds
        processes.removeRelay(victim)?.killAbruptly()
        try await Task.sleep(for: .milliseconds(9_000 + Self.straggling))
        let afterKill = players.closeWindow(players: orphaned, since: killedAt)
        let back = Set(
            afterKill.filter { $0.value.heardEveryoneAfter }.keys.map {
                ClusterPlayers.match(of: $0, playersPerMatch: options.players)
            })
        let orphanedMatches = Set(orphaned.map { ClusterPlayers.match(of: $0, playersPerMatch: options.players) })
        report.add(
            "node killed: matches back", 100 * Double(back.count) / Double(max(1, orphanedMatches.count)), unit: "%",
            target: .atLeast(100))
        let gaps = afterKill.values.map { beyondInterval($0.longestSilence) }.sorted()
        report.add("node killed: voice gap p50", percentile(gaps, 0.5) * 1000, unit: "ms")
        report.add("node killed: voice gap p99", percentile(gaps, 0.99) * 1000, unit: "ms", target: .atMost(3000))
        report.add("node killed: voice gap max", (gaps.last ?? 0) * 1000, unit: "ms")

        // A node drained.
        let drained = busiest(processes)
        let moving = members(of: processes.matches(on: drained))
        print("draining \(drained), home to \(processes.matches(on: drained).count) matches")
        players.openWindow(seconds: 6)
        let drainedAt = NIODeadline.now().uptimeNanoseconds
        let cpuBefore = MachineCPU.now()
        let udpDropsBefore = MachineCPU.udpReceiveDrops()
        let relayDropsBefore = processes.drops(except: drained)
        let process = processes.removeRelay(drained)
        if let process { kill(process.processIdentifier, SIGTERM) }
        let signalled = Date()
        // The relay states its deadline (30 s); past it, it is stopped.
        if let process, !process.waitForExit(seconds: 35) { process.terminate() }
        let drainSeconds = Date().timeIntervalSince(signalled)
        try await Task.sleep(for: .milliseconds(Int(max(0, 6 - drainSeconds) * 1000) + Self.straggling))
        let afterDrain = players.closeWindow(players: moving, since: drainedAt)
        // Whether the machine had CPU to spare: above ~90 %, what is measured is the queue for it.
        let cpu = MachineCPU.now().since(cpuBefore)
        report.add("machine CPU busy during the drain (all processes)", cpu.busy * 100, unit: "%")
        report.add("machine CPU stolen by the host during the drain", cpu.stolen * 100, unit: "%")
        // Datagrams the kernel dropped for full receive buffers (any socket): loss of the loopback
        // "network" itself, which the relays never saw or the players never read.
        for (reason, count) in processes.drops(except: drained).merging(relayDropsBefore, uniquingKeysWith: -)
        where count > 0 {
            report.add("drain: the other relays dropped (\(reason))", Double(count), unit: "datagrams")
        }
        report.add(
            "drain: datagrams the kernel dropped (receive buffers full)",
            Double(MachineCPU.udpReceiveDrops() - udpDropsBefore), unit: "datagrams")
        let drainGaps = afterDrain.values.map { beyondInterval($0.longestSilence) }.sorted()
        report.add("drain: longest voice gap", (drainGaps.last ?? 0) * 1000, unit: "ms", target: .atMost(60))
        report.add("drain: voice gap p99", percentile(drainGaps, 0.99) * 1000, unit: "ms")
        report.add(
            "drain: datagrams lost", Double(afterDrain.values.map { $0.missed }.reduce(0, +)), unit: "datagrams",
            target: .atMost(0))
        report.add("drain: until the drained relay exited", drainSeconds * 1000, unit: "ms")

        // etcd: one member of three killed, then the other two frozen.
        let everyone = Array(0..<count)
        players.openWindow(seconds: 4)
        let memberKilledAt = NIODeadline.now().uptimeNanoseconds
        processes.etcd[0].killAbruptly()
        try await Task.sleep(for: .milliseconds(4_000 + Self.straggling))
        let afterMember = players.closeWindow(players: everyone, since: memberKilledAt)
        report.add(
            "etcd member killed: longest voice gap",
            (afterMember.values.map { beyondInterval($0.longestSilence) }.max() ?? 0) * 1000,
            unit: "ms", target: .atMost(60))

        players.openWindow(seconds: 10)
        let frozenAt = NIODeadline.now().uptimeNanoseconds
        for member in processes.etcd.dropFirst() { kill(member.processIdentifier, SIGSTOP) }
        // New players of a new match try to join while etcd is gone.
        let late = count..<(count + options.players)
        let node = processes.relays.values.first!.port
        for player in late { try await players.join(player, relays: [node], secret: secret) }
        try await Task.sleep(for: .milliseconds(10_000))
        let refused = late.filter { players.lastRefusal($0) == .clusterUnavailable }.count
        let joinedWhileDown = players.joined(late)
        for member in processes.etcd.dropFirst() { kill(member.processIdentifier, SIGCONT) }
        let returned = Date()
        while players.joined(late) < late.count, Date().timeIntervalSince(returned) < 10 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let joinedAfter = Date().timeIntervalSince(returned)
        let afterFreeze = players.closeWindow(players: everyone, since: frozenAt)
        report.add(
            "etcd stopped 10 s: longest voice gap in placed matches",
            (afterFreeze.values.map { beyondInterval($0.longestSilence) }.max() ?? 0) * 1000, unit: "ms",
            target: .atMost(60))
        report.add(
            "etcd stopped: new joins refused as cluster unavailable", Double(refused), unit: "players",
            target: .atLeast(Double(late.count)))
        report.require(joinedWhileDown == 0, "\(joinedWhileDown) players joined a new match while etcd was stopped")
        report.add("etcd back: new joins in after", joinedAfter * 1000, unit: "ms", target: .atMost(2000))
        await players.shutdown()
        return report
    }

    /// Milliseconds a window stays open after its last tick, for datagrams still on their way: what
    /// has not arrived by then counts as lost.
    static let straggling = 2_000

    /// The processes and players of one placement run.
    struct Joined {
        var processes: ClusterProcesses
        var players: ClusterPlayers
        var joinSeconds: [Double]
    }

    /// Starts the relays (three of a cluster on a three-member etcd, or one on its own) and joins
    /// every player, at the join rate, through a relay chosen at random; the players then talk.
    private func joinAll(clustered: Bool) async throws -> Joined {
        let processes = try ClusterProcesses(basePort: options.basePort, secretText: secretText)
        let nodes = clustered ? ["a", "b", "c"] : ["solo"]
        if clustered { try processes.startEtcd(members: 3) }
        for (index, node) in nodes.enumerated() {
            try processes.startRelay(node, port: options.basePort + 10 + index, clustered: clustered)
        }
        if clustered { try processes.waitForNodes(3, seenBy: "a") }
        try await Task.sleep(for: .milliseconds(1_200))
        let players = ClusterPlayers(
            count: count + options.players, playersPerMatch: options.players,
            interval: .milliseconds(options.intervalMs), threads: 2)
        let ports = nodes.map { processes.relays[$0]!.port }
        let talking = players.talk()
        let spacing = Duration.nanoseconds(Int64(1e9 / options.joinRate))
        let start = ContinuousClock.now
        for player in 0..<count {
            var order = ports.shuffled()
            order = [order[0]] + order.dropFirst()
            try await players.join(player, relays: order, secret: secret)
            try await Task.sleep(until: start + spacing * (player + 1))
        }
        let deadline = Date().addingTimeInterval(20)
        while players.joined(0..<count) < count, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        _ = talking
        print("\(clustered ? "cluster" : "one relay"): \(players.joined(0..<count)) of \(count) players joined")
        return Joined(processes: processes, players: players, joinSeconds: players.joinSeconds(0..<count))
    }

    /// Seconds each of `count` claims takes: create-if-absent under a lease, as placement claims.
    private func claimTransactions(etcd urls: [String], count: Int) async throws -> [Double] {
        let etcd = EtcdClient(endpoints: urls)
        let lease = try await etcd.grantLease(seconds: 10)
        var seconds: [Double] = []
        let clock = ContinuousClock()
        for index in 0..<count {
            let key = "/voicechat-bench/claims/\(index)"
            let start = clock.now
            _ = try await etcd.transaction(if: [.absent(key)], then: [.put(key, Array("bench".utf8), lease: lease)])
            let elapsed = clock.now - start
            seconds.append(Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
        }
        try await etcd.revoke(lease: lease)
        return seconds
    }

    /// A silence heard, less the talking interval itself: what a listener missed.
    private func beyondInterval(_ silence: Double) -> Double { max(0, silence - Double(options.intervalMs) / 1000) }

    /// What the relays other than `except` dropped so far, by reason (`relay-admin stats`).
    private func busiest(_ processes: ClusterProcesses) -> String {
        processes.relays.keys.sorted().max { processes.matches(on: $0).count < processes.matches(on: $1).count }!
    }

    /// The players of `matches`.
    private func members(of matches: [String]) -> [Int] {
        matches.compactMap { Int($0.dropFirst()) }.flatMap { match in
            (match * options.players)..<(match * options.players + options.players)
        }
    }
}

/// The machine's CPU time by kind, from /proc/stat.
struct MachineCPU {
    var busy: Double
    var stolen: Double
    var total: Double

    static func now() -> MachineCPU {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return MachineCPU(busy: 0, stolen: 0, total: 0) }
        // user nice system idle iowait irq softirq steal
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 8 else { return MachineCPU(busy: 0, stolen: 0, total: 0) }
        let idle = fields[3] + fields[4]
        let total = fields[0..<8].reduce(0, +)
        return MachineCPU(busy: total - idle - fields[7], stolen: fields[7], total: total)
    }

    /// UDP datagrams the kernel has dropped for full receive buffers, since boot (/proc/net/snmp).
    static func udpReceiveDrops() -> Int {
        guard let snmp = try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8) else { return 0 }
        let lines = snmp.split(separator: "\n").filter { $0.hasPrefix("Udp: ") }
        guard lines.count >= 2 else { return 0 }
        let names = lines[0].split(separator: " ")
        let values = lines[1].split(separator: " ")
        guard let index = names.firstIndex(of: "RcvbufErrors"), index < values.count else { return 0 }
        return Int(values[index]) ?? 0
    }

    /// Shares of the time since `earlier`: busy (not idle, not stolen) and stolen.
    func since(_ earlier: MachineCPU) -> (busy: Double, stolen: Double) {
        let total = max(1, self.total - earlier.total)
        return ((busy - earlier.busy) / total, (stolen - earlier.stolen) / total)
    }
}
