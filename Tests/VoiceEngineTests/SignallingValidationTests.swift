import Testing
import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport
import VoiceWire

@Suite struct SignallingValidationTests {
    @Test func malformedUnknownAndOutOfStateMessagesAreRejectedAndReported() throws {
        let world = SimulatedWorld()
        let alice = try world.participant("alice", index: 0)
        let service = alice.makeService()
        let messages: [[UInt8]] = [
            Array("not json".utf8),
            Array(#"{"v":2,"type":"invite"}"#.utf8),
            Array(#"{"v":1,"type":"teleport"}"#.utf8),
            Array(#"{"v":1,"type":"invite","call":"xyz","key":"AAAA"}"#.utf8),
            Array(#"{"v":1,"type":"end","call":"0123456789abcdef0123456789abcdef","reason":"hung-up"}"#.utf8),
            Array(#"{"v":1,"type":"end","call":"0123456789abcdef0123456789abcdef","reason":"bored"}"#.utf8),
            [UInt8](repeating: 0x20, count: 200 * 1024),
        ]
        for message in messages { service.received(message, from: "mallory") }
        let events = alice.callEvents.withLock { $0 }
        #expect(events.count == messages.count)
        #expect(alice.engine.counters.signallingRejected == messages.count)
        let errors = events.compactMap { event -> SignallingError? in
            if case .signallingRejected(_, let error) = event { return error }
            return nil
        }
        #expect(errors.count == messages.count)
        #expect(errors[1] == .unsupportedVersion(2))
        #expect(errors[2] == .unknownType("teleport"))
        #expect(errors[4] == .unknownCall("0123456789abcdef0123456789abcdef"))
        #expect(errors[6] == .oversize(bytes: 200 * 1024, maximum: 160 * 1024))
        for error in errors { #expect(!error.description.isEmpty) }
    }

    @Test func aStrangerCannotEndSomeoneElsesCall() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob, aliceService, call) = (setup.alice, setup.bob, setup.aliceService, setup.call)
        world.run(seconds: 2, [alice, bob])
        let forged = Array(#"{"v":1,"type":"end","call":"\#(call)","reason":"hung-up"}"#.utf8)
        aliceService.received(forged, from: "mallory")
        world.run(seconds: 1, [alice, bob])
        #expect(aliceService.path(to: "bob") == .direct)
        #expect(
            alice.callEvents.withLock { $0 }.last
                == .signallingRejected(from: "mallory", error: .notAParticipant("mallory")))
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 0.8) > 0.05)
    }
}
