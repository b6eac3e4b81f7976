import Foundation
import Synchronization
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceSimulation
import VoiceTransport

/// One participant of a simulated world: an engine on the world's clock, a "voice" (a tone of its
/// own frequency in syllable-like bursts, so the speech gate opens and its contribution to a mix
/// can be told apart from the others'), and a recording of what it heard.
public final class SimulatedParticipant: @unchecked Sendable {
    public let name: ParticipantID
    public let engine: VoiceEngine
    public let client: SimulatedClient
    public let network: SimulatedSocket
    public let frequency: Double
    public var service: VoiceChatService?
    public var match: Match?
    public var isTalking = true
    private(set) var heard: [Float] = []
    /// What a stereo engine played on each side (`heard` is then their average).
    private(set) var heardLeft: [Float] = []
    private(set) var heardRight: [Float] = []
    private var sample = 0
    public let callEvents = EventLog<VoiceChatEvent>()
    public let matchEvents = EventLog<MatchEvent>()

    public init(
        _ name: ParticipantID, index: Int, world: SimulatedWorld, offersRealTime: Bool,
        configuration: EngineConfiguration
    ) throws {
        self.name = name
        frequency = 500 + 400 * Double(index)
        client = SimulatedClient(name, world: world, offersRealTime: offersRealTime)
        network = SimulatedSocket(address: try PeerAddress(host: "10.0.0.\(index + 1)", port: 5000), world: world)
        engine = try VoiceEngine(
            participant: name, configuration: configuration, network: network, relays: RelayLinks(),
            clock: world.clock)
        network.engine = engine
        world.receivers[name] = { [unowned self] delivery in
            if delivery.realTime {
                service?.receivedRealTime(delivery.bytes, from: delivery.from)
                match?.receivedRealTime(delivery.bytes, from: delivery.from)
            } else {
                service?.received(delivery.bytes, from: delivery.from)
                match?.received(delivery.bytes, from: delivery.from)
            }
        }
    }

    public func makeService() -> VoiceChatService {
        let events = callEvents
        let service = VoiceChatService(engine: engine, client: client) { event in
            events.append(event)
        }
        self.service = service
        return service
    }

    /// Joins `matchID` (through `relay`, if given), recording the match's events in `matchEvents`.
    public func join(_ matchID: String, players: [ParticipantID], relay: RelayOptions? = nil) throws -> Match {
        let events = matchEvents
        let match = try Match(engine: engine, client: client, matchID: matchID, players: players, relay: relay) {
            event in events.append(event)
        }
        self.match = match
        return match
    }

    /// The next captured frame: 400 ms of tone, 100 ms of near-silence, over and over.
    public func nextFrame(samples: Int) -> [Float] {
        var frame = [Float](repeating: 0, count: samples)
        for index in 0..<samples {
            let position = sample % 24_000
            let amplitude: Float = isTalking && position < 19_200 ? 0.3 : 0.0005
            frame[index] = amplitude * Float(sin(2 * Double.pi * frequency * Double(sample) / 48_000))
            sample += 1
        }
        return frame
    }

    /// Keeps one frame the engine played, `channels` interleaved.
    public func record(_ frame: [Float], channels: Int = 1) {
        guard channels == 2 else { return heard.append(contentsOf: frame) }
        for index in stride(from: 0, to: frame.count - 1, by: 2) {
            heardLeft.append(frame[index])
            heardRight.append(frame[index + 1])
            heard.append((frame[index] + frame[index + 1]) / 2)
        }
    }

    /// Which of what a participant heard to measure.
    public enum Side: Sendable {
        case both, left, right
    }

    /// Power of `frequency` in the last `seconds` of what this participant heard (Goertzel), as
    /// the RMS amplitude of a sine of that frequency; on one side of a stereo engine's output, if asked.
    public func heardLevel(of frequency: Double, lastSeconds seconds: Double, side: Side = .both) -> Double {
        let samples =
            switch side {
            case .both: heard
            case .left: heardLeft
            case .right: heardRight
            }
        let count = min(samples.count, Int(seconds * 48_000))
        let slice = samples[(samples.count - count)...]
        let omega = 2 * Double.pi * frequency / 48_000
        let coefficient = 2 * cos(omega)
        var previous = 0.0
        var beforePrevious = 0.0
        for value in slice {
            let current = Double(value) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return count > 0 ? (2 * power).squareRoot() / Double(count) : 0
    }
}

extension SimulatedWorld {
    public static let frame = FrameDuration.ms20

    public func participant(
        _ name: ParticipantID, index: Int, offersRealTime: Bool = true,
        configuration: EngineConfiguration = SimulatedWorld.fastConfiguration
    ) throws -> SimulatedParticipant {
        try SimulatedParticipant(
            name, index: index, world: self, offersRealTime: offersRealTime, configuration: configuration)
    }

    /// Runs `seconds` of virtual time in 20 ms frames: delivers what is due, then ticks every engine.
    public func run(seconds: Double, _ participants: [SimulatedParticipant]) {
        let frames = Int((seconds * 1000 / Self.frame.milliseconds).rounded())
        let samples = Self.frame.engineFrames
        var outputs = [1: [Float](repeating: 0, count: samples), 2: [Float](repeating: 0, count: 2 * samples)]
        for _ in 0..<frames {
            clock.advance(by: Self.frame.nanoseconds)
            deliver()
            for participant in participants {
                let captured = participant.nextFrame(samples: samples)
                let channels = participant.engine.outputChannels
                captured.withUnsafeBufferPointer { capturedBuffer in
                    outputs[channels]!.withUnsafeMutableBufferPointer { outputBuffer in
                        participant.engine.tick(at: clock.now, captured: capturedBuffer, output: outputBuffer)
                    }
                }
                participant.record(outputs[channels]!, channels: channels)
            }
        }
    }

    /// Engine settings for tests: the defaults, with a short invitation timeout.
    public static var fastConfiguration: EngineConfiguration {
        EngineConfiguration(invitationTimeoutSeconds: 5, pathTimeoutSeconds: 6)
    }
}

/// Events as a handler received them, for tests to read back.
public final class EventLog<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])

    public init() {}

    public func append(_ event: Event) { events.withLock { $0.append(event) } }

    public func withLock<Result>(_ body: ([Event]) -> Result) -> Result { events.withLock { body($0) } }
}

/// A 1:1 call from alice to bob, set up by `invitedCall` or `acceptedCall`.
public struct SimulatedCall {
    public let alice: SimulatedParticipant
    public let bob: SimulatedParticipant
    public let aliceService: VoiceChatService
    public let bobService: VoiceChatService
    public let call: CallID
}

extension SimulatedWorld {
    /// Alice invites bob and the invitation arrives (0.1 s). With `blockingDirect`, alice's direct
    /// address is unreachable from the start.
    public func invitedCall(blockingDirect: Bool = false) throws -> SimulatedCall {
        let alice = try participant("alice", index: 0)
        let bob = try participant("bob", index: 1)
        if blockingDirect { _ = blocked.withLock { $0.insert(alice.network.address) } }
        let aliceService = alice.makeService()
        let bobService = bob.makeService()
        let call = try aliceService.startVoiceChat(with: "bob")
        run(seconds: 0.1, [alice, bob])
        return SimulatedCall(alice: alice, bob: bob, aliceService: aliceService, bobService: bobService, call: call)
    }

    /// `invitedCall`, then bob accepts; `run` the world to let the call start.
    public func acceptedCall(blockingDirect: Bool = false) throws -> SimulatedCall {
        let call = try invitedCall(blockingDirect: blockingDirect)
        try call.bobService.accept(call.call)
        return call
    }

    /// Alice, bob and carol, each in match "arena" with the other two, introduced to each other (0.1 s).
    public func threePlayerMatch() throws -> [SimulatedParticipant] {
        let players = try ["alice", "bob", "carol"].enumerated().map { index, name in
            try participant(name, index: index)
        }
        for player in players { _ = try player.join("arena", players: players.map(\.name)) }
        run(seconds: 0.1, players)
        return players
    }
}
