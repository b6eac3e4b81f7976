import ArgumentParser
import Foundation
import VoiceCore
@_spi(Simulation) import VoiceRelay
import VoiceSimulation
import VoiceWire

/// `bench/run proximity`: what the relay forwards on a positional channel, against the same match
/// heard whole, and whether every listener in range gets every packet.
struct ProximityBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proximity",
        abstract: "Relay range culling on a positional channel: forwarded copies vs no culling, and packets missed.",
        discussion: """
            Players in groups walk a square map (each group heads for random waypoints at walking \
            speed; each player wanders within the group's spread, also at walking speed), every \
            player talks all the time (50 packets/s) in one channel, and each tells the relay where \
            it stands at --position-hz. Two relays see the same packets: one where every player \
            hears the channel within --range (the positional channel), one where nobody set a range \
            (the same match heard whole: the baseline). A listener is in range of a packet when, by \
            the positions last reported, it stands within --range of the sender; every such packet \
            must reach it. This runs the relay's own state machine (RelayState, as `voicechat relay` \
            runs it) on the bytes it would receive, in virtual time and with no sockets: it counts \
            what the relay decides to forward, not what a network then carries. The relay's limits \
            are its defaults but for the members a match may hold, raised to --players (said in \
            the output).
            """
    )

    @Option(help: "Players in the match.") var players = 200
    @Option(help: "Groups they walk in.") var groups = 8
    @Option(help: "Side of the square map, m.") var map: Float = 1000
    @Option(help: "Hearing range of the positional channel, m.") var range: Float = 40
    @Option(help: "Radius a group's players wander within around the group's centre, m.") var spread: Float = 30
    @Option(help: "Walking speed, m/s.") var speed: Float = 1.4
    @Option(help: "Positions each player reports per second.") var positionHz = 30
    @Option(help: "Seconds of the match (virtual time).") var seconds = 60
    @Option(help: "Seed of the walk.") var seed: UInt64 = 7

    func validate() throws {
        guard (2...50_000).contains(players) else { throw ValidationError("--players must be 2…50000") }
        guard (1...players).contains(groups) else { throw ValidationError("--groups must be 1…--players") }
        guard map > 0, range > 0, spread >= 0, speed >= 0, map.isFinite, range.isFinite else {
            throw ValidationError("--map and --range must be positive, --spread and --speed not negative")
        }
        guard (1...50).contains(positionHz) else {
            throw ValidationError("--position-hz must be 1…50 (the relay takes 40/s)")
        }
        guard (1...3600).contains(seconds) else { throw ValidationError("--seconds must be 1…3600") }
    }

    func run() throws {
        let channel: ChannelNumber = 1
        var limits = RelayLimits()
        limits.maximumMembersPerMatch = max(limits.maximumMembersPerMatch, players)
        print(
            "settings: the relay's defaults but maximumMembersPerMatch \(limits.maximumMembersPerMatch) "
                + "(default \(RelayLimits().maximumMembersPerMatch)); \(players) players in \(groups) groups on "
                + "\(Int(map)) m × \(Int(map)) m, range \(range) m (margin \(HearingRange.defaultMargin(for: range)) m), "
                + "spread \(spread) m, \(speed) m/s, positions at \(positionHz) Hz, \(seconds) s, seed \(seed)")
        let culling = RelaySimulation(limits: limits)
        let whole = RelaySimulation(limits: limits)
        let names = (0..<players).map { "player-\($0)" }
        for name in names {
            for relay in [culling, whole] {
                guard case .joined = try relay.join(name, match: "field", channels: [channel], now: 0) else {
                    throw ValidationError("the relay refused \(name)'s join")
                }
            }
            try culling.send(.hearingRange(channel: channel, range: range), from: name, now: 0)
        }
        var walk = GroupWalk(
            players: players, groups: groups, map: map, spread: spread, speed: speed, seed: seed)
        let frame: UInt64 = 20_000_000
        let frames = seconds * 50
        var reported = walk.positions
        var missed = 0
        var inRange = 0
        var withinMargin = 0
        var culledCopies = 0
        var wholeCopies = 0
        var culledNanoseconds: UInt64 = 0
        var wholeNanoseconds: UInt64 = 0
        var positionNanoseconds: UInt64 = 0
        var positionReports = 0
        let rangeSquared = range * range
        var delivered = [Bool](repeating: false, count: players)
        for frameNumber in 0..<frames {
            let now = UInt64(frameNumber) * frame + frame
            walk.advance(seconds: 0.02)
            // Reports spread evenly over the frames, `positionHz` a second.
            if frameNumber == 0 || frameNumber * positionHz / 50 != (frameNumber - 1) * positionHz / 50 {
                reported = walk.positions
                let started = DispatchTime.now().uptimeNanoseconds
                for (player, name) in names.enumerated() {
                    let message = RelayMessage.position(mediaID: ParticipantID(name).mediaID, reported[player])
                    try culling.send(message, from: name, now: now)
                    try whole.send(message, from: name, now: now)
                }
                positionNanoseconds += DispatchTime.now().uptimeNanoseconds - started
                positionReports += players
            }
            for (sender, name) in names.enumerated() {
                var started = DispatchTime.now().uptimeNanoseconds
                culledCopies += culling.sendVoice(from: name, channel: channel, now: now) { delivered[$0] = true }
                culledNanoseconds += DispatchTime.now().uptimeNanoseconds - started
                started = DispatchTime.now().uptimeNanoseconds
                wholeCopies += whole.sendVoice(from: name, channel: channel, now: now)
                wholeNanoseconds += DispatchTime.now().uptimeNanoseconds - started
                for listener in 0..<players where listener != sender {
                    let isInRange = reported[sender].distanceSquared(to: reported[listener]) <= rangeSquared
                    if isInRange {
                        inRange += 1
                        if !delivered[listener] { missed += 1 }
                    } else if delivered[listener] {
                        withinMargin += 1
                    }
                    delivered[listener] = false
                }
            }
        }
        let duration = Double(seconds)
        let culledPerSecond = Double(culledCopies) / duration
        let wholePerSecond = Double(wholeCopies) / duration
        let packets = Double(frames * players)
        print(
            String(
                format:
                    "forwarded copies/s: %.0f with range culling, %.0f heard whole (%.1f× fewer); %.1f listeners in range per packet on average",
                culledPerSecond, wholePerSecond, wholePerSecond / max(culledPerSecond, 1), Double(inRange) / packets))
        print(
            "every copy the relay kept back was counted by it as out of range: "
                + "\(culling.counters.packetsOutOfRange) (\(wholeCopies - culledCopies) fewer copies)")
        var report = BenchmarkReport(bench: "proximity")
        report.add(
            "forwarded copies/s, positional channel", culledPerSecond, unit: "copies/s", baseline: wholePerSecond)
        report.add(
            "reduction against the same match heard whole", wholePerSecond / max(culledPerSecond, 1), unit: "×",
            target: .atLeast(5))
        report.add(
            "packets a listener in range missed", Double(missed), unit: "packets", baseline: Double(inRange),
            target: .atMost(0))
        report.add(
            "copies to listeners within the margin (beyond the range, heard before)", Double(withinMargin),
            unit: "copies", baseline: Double(culledCopies))
        report.add(
            "time per envelope in the relay's state machine (with the harness's envelope), positional channel",
            Double(culledNanoseconds) / packets, unit: "ns",
            baseline: Double(wholeNanoseconds) / packets)
        report.add(
            "relay time per position report", Double(positionNanoseconds) / Double(positionReports) / 2, unit: "ns")
        report.require(
            culling.counters.packetsOutOfRange == wholeCopies - culledCopies,
            "the relay's out-of-range count (\(culling.counters.packetsOutOfRange)) is not the copies it kept back (\(wholeCopies - culledCopies))"
        )
        if !report.finish() { throw ExitCode.failure }
    }
}

/// Groups heading for random waypoints across the map, each player wandering within the group's
/// spread around its centre, everyone at walking speed. Seeded: the same walk every run.
struct GroupWalk {
    private(set) var positions: [VoicePosition]
    private var centres: [VoicePosition]
    private var waypoints: [VoicePosition]
    /// Each player's offset from its group's centre, and where the offset heads.
    private var offsets: [VoicePosition]
    private var offsetTargets: [VoicePosition]
    private let groupOf: [Int]
    private let map: Float
    private let spread: Float
    private let speed: Float
    private var random: SeededRandom

    init(players: Int, groups: Int, map: Float, spread: Float, speed: Float, seed: UInt64) {
        self.map = map
        self.spread = spread
        self.speed = speed
        random = SeededRandom(seed: seed)
        groupOf = (0..<players).map { $0 % groups }
        centres = []
        waypoints = []
        offsets = []
        offsetTargets = []
        positions = []
        for _ in 0..<groups {
            centres.append(randomPoint())
            waypoints.append(randomPoint())
        }
        for _ in 0..<players {
            offsets.append(randomOffset())
            offsetTargets.append(randomOffset())
        }
        positions = (0..<players).map { add(centres[groupOf[$0]], offsets[$0]) }
    }

    mutating func advance(seconds: Float) {
        let step = speed * seconds
        for group in centres.indices {
            if Self.moveToward(&centres[group], waypoints[group], by: step) { waypoints[group] = randomPoint() }
        }
        for player in offsets.indices {
            if Self.moveToward(&offsets[player], offsetTargets[player], by: step) {
                offsetTargets[player] = randomOffset()
            }
            positions[player] = add(centres[groupOf[player]], offsets[player])
        }
    }

    /// Moves `point` toward `target` by at most `step`; true once it is there.
    private static func moveToward(_ point: inout VoicePosition, _ target: VoicePosition, by step: Float) -> Bool {
        let distance = point.distance(to: target)
        guard distance > step else {
            point = target
            return true
        }
        let fraction = step / distance
        point.x += (target.x - point.x) * fraction
        point.y += (target.y - point.y) * fraction
        return false
    }

    private mutating func randomPoint() -> VoicePosition {
        VoicePosition(x: Float(random.nextUnit()) * map, y: Float(random.nextUnit()) * map, z: 0)
    }

    private mutating func randomOffset() -> VoicePosition {
        let angle = Float(random.nextUnit()) * 2 * .pi
        let radius = spread * Float(random.nextUnit()).squareRoot()
        return VoicePosition(x: radius * cos(angle), y: radius * sin(angle), z: 0)
    }

    private func add(_ a: VoicePosition, _ b: VoicePosition) -> VoicePosition {
        VoicePosition(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z)
    }
}
