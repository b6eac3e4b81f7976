import Testing
import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport
import VoiceTransport

@Suite struct PathFailoverTests {
    @Test func blockedDirectPathFallsBackToTheAppsRealTimeChannel() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall(blockingDirect: true)
        let (alice, bob, call) = (setup.alice, setup.bob, setup.call)
        world.run(seconds: 5, [alice, bob])
        #expect(alice.callEvents.withLock { $0 }.contains(.started(call: call, with: "bob", path: .appCarried)))
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 2) > 0.05)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 2) > 0.05)
    }

    @Test func withoutAnyPathTheCallDoesNotStart() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall(blockingDirect: true)
        let (alice, bob, call) = (setup.alice, setup.bob, setup.call)
        world.realTimeBlocked.withLock { _ = $0.insert("alice") }
        world.run(seconds: 7, [alice, bob])
        #expect(alice.callEvents.withLock { $0 }.last == .didNotStart(call: call, with: "bob", reason: .noRealTimePath))
    }

    @Test func directPathDyingMidCallFailsOverWithinASecondAndComesBack() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob, call) = (setup.alice, setup.bob, setup.call)
        world.run(seconds: 3, [alice, bob])
        #expect(alice.service?.path(to: "bob") == .direct)

        world.blocked.withLock { _ = $0.insert(bob.network.address) }
        let cut = world.clock.now
        var failedOverAt: MediaTime?
        for _ in 0..<100 {
            world.run(seconds: 0.02, [alice, bob])
            if failedOverAt == nil, alice.service?.path(to: "bob") == .appCarried,
                bob.service?.path(to: "alice") == .appCarried
            {
                failedOverAt = world.clock.now
            }
        }
        let failover = try #require(failedOverAt) - cut
        #expect(failover < MediaTime.nanosecondsPerSecond)
        #expect(alice.callEvents.withLock { $0 }.contains(.pathChanged(call: call, with: "bob", path: .appCarried)))
        // The call went on: voice still arrives, on the app's channel.
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)

        world.blocked.withLock { $0.removeAll() }
        world.run(seconds: 5, [alice, bob])
        #expect(alice.service?.path(to: "bob") == .direct)
        #expect(alice.callEvents.withLock { $0 }.last == .pathChanged(call: call, with: "bob", path: .direct))
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.05)
    }

    @Test func peerThatVanishesEndsTheCallAsConnectionLost() throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob, call) = (setup.alice, setup.bob, setup.call)
        world.run(seconds: 2, [alice, bob])
        world.blocked.withLock { _ = $0.insert(bob.network.address) }
        world.realTimeBlocked.withLock { _ = $0.insert("bob") }
        world.run(seconds: 15, [alice])
        #expect(alice.callEvents.withLock { $0 }.last == .stopped(call: call, with: "bob", reason: .connectionLost))
    }
}
