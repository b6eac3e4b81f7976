import Testing
import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport

@Suite struct CallTests {
    @Test func invitedParticipantAcceptsAndVoiceFlowsBothWays() throws {
        let world = SimulatedWorld()
        let setup = try world.invitedCall()
        let (alice, bob, aliceService, bobService, call) = (
            setup.alice, setup.bob, setup.aliceService, setup.bobService, setup.call
        )
        #expect(bob.callEvents.withLock { $0 } == [.invitation(call: call, from: "alice")])

        try bobService.accept(call)
        world.run(seconds: 3, [alice, bob])
        #expect(alice.callEvents.withLock { $0 }.contains(.started(call: call, with: "bob", path: .direct)))
        #expect(bob.callEvents.withLock { $0 }.contains(.started(call: call, with: "alice", path: .direct)))
        #expect(aliceService.path(to: "bob") == .direct)

        // Each hears the other's tone, and not its own.
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 2) > 0.05)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 2) > 0.05)
        #expect(alice.heardLevel(of: alice.frequency, lastSeconds: 2) < 0.005)

        try bobService.stopVoiceChat(with: "alice")
        world.run(seconds: 0.1, [alice, bob])
        #expect(alice.callEvents.withLock { $0 }.last == .stopped(call: call, with: "bob", reason: .hungUp))
        #expect(bob.callEvents.withLock { $0 }.last == .stopped(call: call, with: "alice", reason: .hungUp))
        #expect(aliceService.path(to: "bob") == nil)
    }

    @Test func deniedInvitationDoesNotStart() throws {
        let world = SimulatedWorld()
        let setup = try world.invitedCall()
        let (alice, bob, bobService, call) = (setup.alice, setup.bob, setup.bobService, setup.call)
        try bobService.deny(call)
        world.run(seconds: 0.1, [alice, bob])
        #expect(alice.callEvents.withLock { $0 } == [.didNotStart(call: call, with: "bob", reason: .denied)])
        #expect(throws: VoiceChatError.unknownCall(call)) { try bobService.accept(call) }
    }

    @Test func unansweredInvitationTimesOutOnBothSides() throws {
        let world = SimulatedWorld()
        let setup = try world.invitedCall()
        let (alice, bob, call) = (setup.alice, setup.bob, setup.call)
        world.run(seconds: 4.8, [alice, bob])
        #expect(alice.callEvents.withLock { $0 }.isEmpty)
        world.run(seconds: 0.3, [alice, bob])
        #expect(alice.callEvents.withLock { $0 } == [.didNotStart(call: call, with: "bob", reason: .timedOut)])
        #expect(
            bob.callEvents.withLock { $0 } == [
                .invitation(call: call, from: "alice"), .didNotStart(call: call, with: "alice", reason: .timedOut),
            ])
    }

    @Test func callerWithdrawsTheInvitation() throws {
        let world = SimulatedWorld()
        let setup = try world.invitedCall()
        let (alice, bob, aliceService, bobService, call) = (
            setup.alice, setup.bob, setup.aliceService, setup.bobService, setup.call
        )
        try aliceService.stopVoiceChat(with: "bob")
        world.run(seconds: 0.1, [alice, bob])
        #expect(alice.callEvents.withLock { $0 } == [.didNotStart(call: call, with: "bob", reason: .hungUp)])
        #expect(bob.callEvents.withLock { $0 }.last == .didNotStart(call: call, with: "alice", reason: .hungUp))
        #expect(throws: VoiceChatError.unknownCall(call)) { try bobService.accept(call) }
    }

    @Test func controlsRefuseWhatTheyCannotDo() throws {
        let world = SimulatedWorld()
        let alice = try world.participant("alice", index: 0)
        let service = alice.makeService()
        #expect(throws: VoiceChatError.callingSelf) { try service.startVoiceChat(with: "alice") }
        #expect(throws: VoiceChatError.noCall(with: "carol")) { try service.stopVoiceChat(with: "carol") }
        #expect(throws: VoiceChatError.self) { try service.setRemoteParticipantVolume(1.5) }
        try service.startVoiceChat(with: "bob")
        #expect(throws: VoiceChatError.alreadyInCall(with: "bob")) { try service.startVoiceChat(with: "bob") }
    }

    @Test func microphoneMuteAndVolumeTakeEffectInWhatIsHeard() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob, aliceService, bobService) = (setup.alice, setup.bob, setup.aliceService, setup.bobService)
        world.run(seconds: 3, [alice, bob])
        let full = bob.heardLevel(of: alice.frequency, lastSeconds: 2)
        #expect(full > 0.05)

        try bobService.setRemoteParticipantVolume(0.5)
        world.run(seconds: 2, [alice, bob])
        let half = bob.heardLevel(of: alice.frequency, lastSeconds: 1.5)
        #expect(abs(half / full - 0.5) < 0.1)

        aliceService.isMicrophoneMuted = true
        world.run(seconds: 2, [alice, bob])
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1.5) < 0.005)
    }

    @Test func metersReadTheMicrophoneAndTheMix() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob, aliceService, bobService) = (setup.alice, setup.bob, setup.aliceService, setup.bobService)
        #expect(aliceService.inputMeterLevel == -.infinity)
        aliceService.isInputMeteringEnabled = true
        bobService.isOutputMeteringEnabled = true
        world.run(seconds: 2, [alice, bob])
        // A 0.3-amplitude sine is about −13.5 dBFS RMS.
        #expect((-20 ... -8).contains(aliceService.inputMeterLevel))
        #expect((-30 ... -8).contains(bobService.outputMeterLevel))
    }
}
