import Testing
import VoiceCore

@testable import VoiceEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Per-frame changes handed to the engine without waiting for its turn: checked on the caller's
/// thread, applied by whoever owns the engine's state before its next frame.
@Suite struct EngineOrderTests {
    @Test func anOrderIsCheckedAtOnceAndAppliedBeforeTheNextFrame() throws {
        let engine = try VoiceEngine(participant: "alice", clock: ManualClock())
        let service = VoiceChatService(engine: engine, client: NoSignalling())
        try engine.hand(.microphoneMuted(true))
        try engine.hand(.pushToTalk(true))
        try engine.hand(.talkKeyDown(true))
        try engine.hand(.playerVolume(0.5, player: "bob"))
        #expect(service.isMicrophoneMuted)
        #expect(service.pushToTalk)
        #expect(service.isTalkKeyDown)
        #expect(service.volume(of: "bob") == 0.5)
        // An order for a match that does not exist does nothing, and fails nobody.
        try engine.hand(.channelVolume(0.5, channel: 7, match: "nowhere"))
        try engine.hand(.position(VoicePosition(x: 1, y: 2, z: 3), right: nil, match: "nowhere"))
    }

    @Test func argumentsTheEngineWouldRefuseAreRefusedBeforeTheyAreQueued() throws {
        let engine = try VoiceEngine(participant: "alice", clock: ManualClock())
        let refused: [EngineOrder] = [
            .playerVolume(2.5, player: "bob"), .playerVolume(.nan, player: "bob"),
            .channelVolume(-0.1, channel: 1, match: "m"), .channelVolume(.infinity, channel: 1, match: "m"),
            .position(VoicePosition(x: .nan, y: 0, z: 0), right: nil, match: "m"),
            .position(VoicePosition(x: 0, y: 0, z: 0), right: VoicePosition(x: 0, y: 0, z: 0), match: "m"),
            .playerPosition(VoicePosition(x: 0, y: .infinity, z: 0), player: "bob", match: "m"),
        ]
        for order in refused {
            #expect(throws: VoiceChatError.self, "\(order)") { try engine.hand(order) }
        }
        let service = VoiceChatService(engine: engine, client: NoSignalling())
        #expect(service.volume(of: "bob") == 1)
    }

    /// While the engine thread runs, the caller does not wait for its turn: the order is applied
    /// by the engine thread, before the frame, and seen by the next call that waits for it.
    @Test func whileTheEngineThreadRunsTheCallerDoesNotWaitForIt() throws {
        let engine = try VoiceEngine(participant: "alice")
        try engine.start()
        defer { engine.shutDown() }
        let service = VoiceChatService(engine: engine, client: NoSignalling())
        let waitsBefore = engine.engineCommandWaits.count
        for down in [true, false, true] { try engine.hand(.talkKeyDown(down)) }
        #expect(engine.engineCommandWaits.count == waitsBefore, "handing an order waited for the engine thread")
        #expect(service.isTalkKeyDown)
        #expect(engine.engineCommandWaits.count == waitsBefore + 1)
    }
}

private final class NoSignalling: VoiceChatClient {
    var participantID: ParticipantID { "alice" }
    func send(_ data: [UInt8], to participant: ParticipantID) {}
}
