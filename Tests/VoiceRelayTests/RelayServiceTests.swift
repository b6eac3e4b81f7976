import Logging
import ServiceLifecycle
import Testing
import VoiceRelay
import VoiceRelayClient
import VoiceWire

@Suite struct RelayServiceTests {
    @Test func runsInAServiceGroupUntilGracefulShutdown() async throws {
        let harness = RelayHarness()
        var logger = Logger(label: "voicechat.relay.test")
        logger.logLevel = .warning
        let relay = RelayServer(configuration: harness.configuration(), logger: logger)
        let group = ServiceGroup(services: [relay], gracefulShutdownSignals: [], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await eventually("the relay listens") { relay.localPort != nil }
            let peer = try await harness.join("alice", relay: relay)
            try await peer.waitUntilJoined()
            await group.triggerGracefulShutdown()
            try await tasks.next()
            try await eventually("the member is told the relay is going away") {
                peer.receivedEvents.contains(.kicked(.shutdown))
            }
            await harness.close(peer)
        }
    }
}
