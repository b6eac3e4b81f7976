import Foundation
import Synchronization
import Testing
import VoiceCore
import VoiceEngine
import VoiceIO
import VoiceTransport

/// Delivers signalling straight to the other participant's service, as an app's own connection would.
private final class DirectClient: VoiceChatClient {
    let participantID: ParticipantID
    let peer = Mutex<VoiceChatService?>(nil)

    init(_ participant: ParticipantID) { participantID = participant }

    func send(_ data: [UInt8], to participant: ParticipantID) {
        peer.withLock { $0 }?.received(data, from: participantID)
    }
}

@Suite struct LoopbackUDPTests {
    @Test func callOverRealUDPOnLoopbackTakesTheDirectPath() async throws {
        let clock = ManualClock(start: MediaTime.nanosecondsPerSecond)
        let aliceNetwork = try await UDPNetwork.bind(host: "127.0.0.1")
        let bobNetwork = try await UDPNetwork.bind(host: "127.0.0.1")
        let alice = try VoiceEngine(participant: "alice", network: aliceNetwork, clock: clock)
        let bob = try VoiceEngine(participant: "bob", network: bobNetwork, clock: clock)
        aliceNetwork.deliver(to: alice)
        bobNetwork.deliver(to: bob)
        let aliceClient = DirectClient("alice")
        let bobClient = DirectClient("bob")
        let bobEvents = Mutex<[VoiceChatEvent]>([])
        let aliceService = VoiceChatService(engine: alice, client: aliceClient)
        let bobService = VoiceChatService(engine: bob, client: bobClient) { event in
            bobEvents.withLock { $0.append(event) }
        }
        aliceClient.peer.withLock { $0 = bobService }
        bobClient.peer.withLock { $0 = aliceService }

        let call = try aliceService.startVoiceChat(with: "bob")
        #expect(bobEvents.withLock { $0 } == [.invitation(call: call, from: "alice")])
        try bobService.accept(call)

        // 4 s of call, paced at a few times real speed so loopback datagrams arrive between frames.
        let samples = FrameDuration.ms20.engineFrames
        var heard: [Float] = []
        var output = [Float](repeating: 0, count: samples)
        for frame in 0..<200 {
            clock.advance(by: FrameDuration.ms20.nanoseconds)
            let tone = (0..<samples).map { index -> Float in
                let sample = frame * samples + index
                return sample % 24_000 < 19_200 ? 0.3 * Float(sin(2 * Double.pi * 700 * Double(sample) / 48_000)) : 0
            }
            tone.withUnsafeBufferPointer { captured in
                output.withUnsafeMutableBufferPointer { alice.tick(at: clock.now, captured: captured, output: $0) }
            }
            output.withUnsafeMutableBufferPointer { bob.tick(at: clock.now, captured: nil, output: $0) }
            heard += output
            try await Task.sleep(for: .milliseconds(4))
        }
        #expect(bobEvents.withLock { $0 }.contains(.started(call: call, with: "alice", path: .direct)))
        #expect(bobService.path(to: "alice") == .direct)
        let lastSecond = heard.suffix(48_000)
        let rms = (lastSecond.reduce(0) { $0 + Double($1 * $1) } / Double(lastSecond.count)).squareRoot()
        #expect(rms > 0.05)
        #expect(bob.counters.unopenedDatagrams == 0)

        try aliceService.stopVoiceChat(with: "bob")
        #expect(bobEvents.withLock { $0 }.last == .stopped(call: call, with: "alice", reason: .hungUp))
        await aliceNetwork.close()
        await bobNetwork.close()
    }

    @Test func aSocketOnEveryInterfaceOffersOnlyAddressesItCanSendTo() async throws {
        let network = try await UDPNetwork.bind(host: "0.0.0.0")
        #expect(!network.localCandidates.isEmpty)
        #expect(network.localCandidates.allSatisfy { $0.family == .ipv4 && $0.port == network.endpoint.localPort })
        // Loopback comes last: two programs on one host meet through it, peers elsewhere use the others.
        #expect(network.localCandidates.last?.isLoopback == true)
        await network.close()
    }
}
