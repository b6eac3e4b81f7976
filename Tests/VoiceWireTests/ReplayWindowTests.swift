import Testing
import VoiceSimulation
import VoiceWire

@Suite struct ReplayWindowTests {
    /// What the window must answer, from a set of every accepted counter.
    struct Model {
        var accepted: Set<UInt64> = []
        var highest: UInt64?

        func check(_ counter: UInt64) -> SecurityError? {
            guard let highest, counter <= highest else { return nil }
            if highest - counter >= UInt64(ReplayWindow.width) { return .tooOld(counter: counter) }
            return accepted.contains(counter) ? .replayed(counter: counter) : nil
        }

        mutating func accept(_ counter: UInt64) {
            accepted.insert(counter)
            highest = max(highest ?? counter, counter)
        }
    }

    func checkError(_ window: ReplayWindow, _ counter: UInt64) -> SecurityError? {
        do {
            try window.check(counter)
            return nil
        } catch {
            return error
        }
    }

    @Test func firstCounterMayBeAnything() throws {
        var window = ReplayWindow()
        #expect(window.highestCounter == nil)
        try window.check(1_000_000)
        #expect(window.highestCounter == nil, "check must not record")
        window.accept(1_000_000)
        #expect(checkError(window, 1_000_000) == .replayed(counter: 1_000_000))
        #expect(checkError(window, 1_000_000 - 1024) == .tooOld(counter: 1_000_000 - 1024))
        #expect(checkError(window, 1_000_000 - 1023) == nil)
    }

    @Test func farJumpForgetsEverythingBehindTheWindow() {
        var window = ReplayWindow()
        for counter in 0..<64 as Range<UInt64> { window.accept(counter) }
        // 17 words of 64: this lands in the word that held 0..<64, which must have been cleared.
        window.accept(17 * 64)
        #expect(checkError(window, 17 * 64 + 1) == nil)
        #expect(checkError(window, 63) == .tooOld(counter: 63))
        #expect(checkError(window, 65) == nil)
        window.accept(10_000_000_000)
        for counter in [10_000_000_000 - 1023, 10_000_000_000 - 1, 10_000_000_001] as [UInt64] {
            #expect(checkError(window, counter) == nil)
        }
        #expect(checkError(window, 17 * 64) == .tooOld(counter: 17 * 64))
    }

    @Test func countersNearTheTopOfTheRange() {
        var window = ReplayWindow()
        window.accept(.max - 1)
        window.accept(.max)
        #expect(checkError(window, .max) == .replayed(counter: .max))
        #expect(checkError(window, .max - 1) == .replayed(counter: .max - 1))
        #expect(checkError(window, .max - 2) == nil)
        #expect(checkError(window, 0) == .tooOld(counter: 0))
    }

    @Test func acceptingAnOldCounterChangesNothing() {
        var window = ReplayWindow()
        window.accept(5_000)
        let before = window
        window.accept(1)
        #expect(window == before)
    }

    /// Random walks with jumps of every size, against the set-based model.
    @Test(arguments: [1 as UInt64, 0x5EED, 99])
    func agreesWithTheModel(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var window = ReplayWindow()
        var model = Model()
        var base: UInt64 = UInt64.random(in: 0...1_000, using: &random)
        var refusals = 0
        for _ in 0..<20_000 {
            let counter: UInt64
            switch Int.random(in: 0..<10, using: &random) {
            case 0: base += UInt64.random(in: 0...5_000, using: &random)
            case 1...2: base += 1
            default: break
            }
            counter = base >= 1_200 ? base - UInt64.random(in: 0...1_200, using: &random) : base
            let expected = model.check(counter)
            #expect(checkError(window, counter) == expected, "counter \(counter)")
            if expected == nil {
                window.accept(counter)
                model.accept(counter)
            } else {
                refusals += 1
            }
        }
        #expect(refusals > 1_000 && model.accepted.count > 1_000)
        #expect(window.highestCounter == model.highest)
    }
}
