import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTransport

/// Real `VoiceEngine`s in one match over the shared `SimulatedWorld`: signalling and datagrams
/// are handed over at the next step, with nothing lost and no delay. Every engine seals and opens
/// its voice as in a real match; only the sockets are simulated, and the clock of all but the first
/// `realTimePlayers`, which run their own engine threads on the real clock.
///
/// One thread drives it (`deliver`).
final class InProcessMatch: @unchecked Sendable {
    let world = SimulatedWorld(conditions: NetworkConditions(baseDelayMilliseconds: 0), captures: false)
    var clock: ManualClock { world.clock }
    private(set) var players: [Player] = []

    final class Player {
        let name: ParticipantID
        let engine: VoiceEngine
        let match: Match
        let channel: VoiceChannel

        init(name: ParticipantID, engine: VoiceEngine, match: Match, channel: VoiceChannel) {
            self.name = name
            self.engine = engine
            self.match = match
            self.channel = channel
        }
    }

    /// `count` players in match "bench", each with channel "all" started and active. The first
    /// `realTimePlayers` run in real time, their engine threads started, the first of them with
    /// `firstPlayerDevices` if given, the rest without devices.
    init(
        players count: Int, configuration: EngineConfiguration, realTimePlayers: Int = 0,
        firstPlayerDevices: (input: any AudioInput, output: any AudioOutput)? = nil
    ) throws {
        let names = (0..<count).map { ParticipantID("player\($0)") }
        for (index, name) in names.enumerated() {
            let socket = SimulatedSocket(
                address: try PeerAddress(host: "10.1.\(index / 200).\(index % 200 + 1)", port: 5000), world: world)
            let devices = index == 0 && realTimePlayers > 0 ? firstPlayerDevices : nil
            let engine = try VoiceEngine(
                participant: name, configuration: configuration, input: devices?.input, output: devices?.output,
                network: socket, clock: index < realTimePlayers ? nil : clock)
            socket.engine = engine
            let match = try Match(
                engine: engine, client: SimulatedClient(name, world: world), matchID: "bench", players: names)
            world.receivers[name] = { delivery in match.received(delivery.bytes, from: delivery.from) }
            let channel = try match.voiceChat(named: "all")
            try channel.start()
            try channel.setActive(true)
            players.append(Player(name: name, engine: engine, match: match, channel: channel))
        }
        for player in players.prefix(realTimePlayers) { try player.engine.start() }
    }

    /// The signalling messages handed over so far that `matching` picks.
    func signallingSent(where matching: (_ bytes: [UInt8], _ from: ParticipantID, _ to: ParticipantID) -> Bool)
        -> [[UInt8]]
    {
        world.capturedSignalling.withLock { log in
            log.filter { matching($0.bytes, $0.from, $0.to) }.map(\.bytes)
        }
    }

    /// Hands over everything queued: signalling to the matches, datagrams to the engines. Each
    /// engine's datagrams are handed over together, in the order they were sent, through
    /// `around(engine, handOver)` (to time or count them): one reading of a thread's CPU clock
    /// costs about a microsecond here, so timing each datagram apart would add tens of
    /// microseconds a frame to the engine timed.
    func deliver(_ around: (VoiceEngine, () -> Void) -> Void = { $1() }) {
        world.deliver(around)
    }
}
