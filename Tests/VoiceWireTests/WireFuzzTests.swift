import Testing
import VoiceSimulation
import VoiceWire

/// Throws random and mutated datagrams at the parsers: they must never trap, and every packet they
/// accept must describe ranges inside the buffer, in order and without overlap.
@Suite struct WireFuzzTests {
    func checkAccepted(_ bytes: [UInt8]) -> Bool {
        guard let view = try? parsePacket(bytes) else { return false }
        var ranges: [Range<Int>] = []
        for index in 0..<view.redundantCount { ranges.append(view.redundant(index).payload) }
        ranges.append(view.primary)
        var end = 0
        for range in ranges {
            #expect(range.lowerBound >= end && range.upperBound <= bytes.count && !range.isEmpty)
            end = range.upperBound
        }
        #expect(view.redundantCount >= 0 && view.redundantCount <= 2)
        #expect(view.primary.upperBound == bytes.count)
        return true
    }

    @Test func randomDatagrams() {
        var random = SeededRandom(seed: 0x5EED)
        var accepted = 0
        for _ in 0..<30_000 {
            let size = Int.random(in: 0...80, using: &random)
            var bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Mostly valid first bytes, so the parser gets past the version check.
            if size > 0 && random.chance(0.8) { bytes[0] = random.chance(0.9) ? 0x11 : 0x12 }
            if checkAccepted(bytes) { accepted += 1 }
            _ = reportParseError(bytes)
        }
        #expect(accepted > 1_000, "the generator must reach past the header checks")
    }

    @Test func mutatedValidPackets() throws {
        var random = SeededRandom(seed: 42)
        var accepted = 0
        var rejected = 0
        for _ in 0..<30_000 {
            let flags = VoicePacketFlags(rawValue: UInt8.random(in: 0...7, using: &random))
            let depth = Int.random(in: 0...2, using: &random)
            func payload() -> [UInt8] {
                (0..<Int.random(in: 1...60, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            var bytes = try writePacket(
                flags: flags, sequence: UInt16.random(in: 0...UInt16.max, using: &random), primary: payload(),
                redundant0: depth >= 1 ? (960, payload()) : nil, redundant1: depth >= 2 ? (1920, payload()) : nil)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1:
                bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
            case 2:
                bytes += (0..<Int.random(in: 1...20, using: &random)).map { UInt8(truncatingIfNeeded: $0) }
            default:
                for _ in 0..<3 { bytes[Int.random(in: 1..<min(bytes.count, 28), using: &random)] ^= 0xFF }
            }
            if checkAccepted(bytes) { accepted += 1 } else { rejected += 1 }
        }
        #expect(accepted > 1_000 && rejected > 1_000)
    }
}
