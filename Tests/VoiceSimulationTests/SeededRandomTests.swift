import Testing
import VoiceSimulation

@Suite struct SeededRandomTests {
    @Test func sameSeedSameSequence() {
        var first = SeededRandom(seed: 9)
        var second = SeededRandom(seed: 9)
        var other = SeededRandom(seed: 10)
        let a = (0..<100).map { _ in first.next() }
        let b = (0..<100).map { _ in second.next() }
        let c = (0..<100).map { _ in other.next() }
        #expect(a == b)
        #expect(a != c)
    }

    @Test func unitValuesAreUniformInTheHalfOpenInterval() {
        var random = SeededRandom(seed: 1)
        var sum = 0.0
        let count = 100_000
        for _ in 0..<count {
            let value = random.nextUnit()
            #expect(value >= 0 && value < 1)
            sum += value
        }
        #expect(abs(sum / Double(count) - 0.5) < 0.01)
    }
}
