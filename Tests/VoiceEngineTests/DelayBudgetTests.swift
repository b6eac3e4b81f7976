import Testing
import VoiceCore
import VoiceEngine
import VoiceMedia

@Suite struct DelayBudgetTests {
    @Test func theBudgetIsSharedOutByFrameLength() {
        let twenty = DelayBudget.standard(frameDuration: .ms20)
        #expect(twenty.maximumMilliseconds == 100)
        #expect(twenty.fixedMilliseconds == 36.5)  // the frame, 6.5 ms of look-ahead, half a frame of phase
        #expect(twenty.bufferingMilliseconds == 63.5)
        #expect(twenty.maximumRepairReach == 2)
        let ten = DelayBudget.standard(frameDuration: .ms10)
        #expect(ten.maximumMilliseconds == 80)
        #expect(ten.bufferingMilliseconds == 58.5)
        #expect(ten.maximumRepairReach == 4)
        let five = DelayBudget.standard(frameDuration: .ms5)
        #expect(five.fixedMilliseconds == 10)  // restricted low delay: 2.5 ms of look-ahead
        #expect(five.maximumRepairReach == 11)
        // A budget that leaves less than a frame to buffer still leaves one frame, and one copy.
        let tight = DelayBudget(maximumMilliseconds: 40, frameDuration: .ms20)
        #expect(tight.bufferingMilliseconds == 20)
        #expect(tight.maximumRepairReach == 1)
    }

    @Test func anEngineRefusesABudgetOutsideItsRangeAndKeepsTheOneItHas() throws {
        for bad in [10.0, 1_001, .nan, .infinity] {
            #expect(throws: VoiceChatError.self) {
                try VoiceEngine(participant: "a", configuration: EngineConfiguration(maximumDelayMilliseconds: bad))
            }
        }
        let engine = try VoiceEngine(participant: "a")
        #expect(engine.maximumDelayMilliseconds == 100)
        #expect(throws: VoiceChatError.self) { try engine.setMaximumDelay(milliseconds: 39) }
        #expect(engine.maximumDelayMilliseconds == 100)
        try engine.setMaximumDelay(milliseconds: 1_000)
        #expect(engine.delayBudget.bufferingMilliseconds == 963.5)
        engine.shutDown()
    }
}
