import Testing
import VoiceSimulation
import VoiceWire

@Suite("ConnectivityProbe")
struct ConnectivityProbeTests {
    @Test func roundTripsThroughItsBytes() throws {
        let probe = ConnectivityProbe(transaction: 0x0102_0304_0506_0708, sentAt: -5, isKeepalive: true)
        let bytes = probe.bytes
        #expect(bytes.count == ConnectivityProbe.encodedBytes)
        #expect(bytes[0] == ConnectivityProbe.formatVersion)
        #expect(Array(bytes[2..<10]) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(try ConnectivityProbe(parsing: bytes) == probe)
        var buffer = [UInt8](repeating: 0, count: 32)
        try buffer.withUnsafeMutableBytes { try probe.write(into: $0) }
        #expect(Array(buffer.prefix(ConnectivityProbe.encodedBytes)) == bytes)
    }

    @Test func rejectsWrongSizeVersionAndFlags() {
        let good = ConnectivityProbe(transaction: 1, sentAt: 2).bytes
        #expect(throws: WireError.probeWrongSize(bytes: 17, expected: 18)) {
            try ConnectivityProbe(parsing: good.dropLast())
        }
        #expect(throws: WireError.probeWrongSize(bytes: 19, expected: 18)) {
            try ConnectivityProbe(parsing: good + [0])
        }
        #expect(throws: WireError.probeWrongSize(bytes: 0, expected: 18)) { try ConnectivityProbe(parsing: []) }
        var badVersion = good
        badVersion[0] = 2
        #expect(throws: WireError.probeUnsupportedVersion(2)) { try ConnectivityProbe(parsing: badVersion) }
        var badFlags = good
        badFlags[1] = 0x81
        #expect(throws: WireError.probeUnknownFlags(0x80)) { try ConnectivityProbe(parsing: badFlags) }
        #expect(WireError.probeUnknownFlags(0x80).description.contains("0x80"))
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: WireError.bufferTooSmall(needed: 18, available: 4)) {
            try buffer.withUnsafeMutableBytes { try ConnectivityProbe(transaction: 1, sentAt: 2).write(into: $0) }
        }
    }

    @Test func randomBytesNeverCrashTheParser() {
        var random = SeededRandom(seed: 42)
        var accepted = 0
        for _ in 0..<10_000 {
            let count = Int(random.next() % 24)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if count == ConnectivityProbe.encodedBytes && random.chance(0.5) {
                bytes[0] = ConnectivityProbe.formatVersion
                bytes[1] &= 1
            }
            if let probe = try? ConnectivityProbe(parsing: bytes) {
                accepted += 1
                #expect(probe.bytes == bytes)
            }
        }
        #expect(accepted > 0)
    }
}
