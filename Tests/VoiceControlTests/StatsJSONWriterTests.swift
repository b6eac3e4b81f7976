import Foundation
import Testing
import VoiceControl
import VoiceTestSupport

@Suite struct StatsJSONWriterTests {
    @Test func writesOneParseableSnapshotPerLine() async throws {
        let path = NSTemporaryDirectory() + "stats-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try StatsJSONWriter.start(path: path, control: FakeControl(.sample), intervalMilliseconds: 50)
        // Whole lines are in the file as soon as they are written, before the writer closes.
        #expect(
            await eventually(within: 5) {
                (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").count ?? 0 >= 2
            })
        await writer.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n")
        #expect(lines.count >= 3)
        for line in lines {
            #expect(try JSONDecoder().decode(SessionSnapshot.self, from: Data(line.utf8)) == .sample)
        }
        #expect(throws: ControlError.self) { try writer.writeSnapshot() }
    }

    @Test func anUnwritablePathIsRefusedWithTheReason() {
        #expect {
            try StatsJSONWriter.start(path: "/nonexistent-dir/stats.jsonl", control: FakeControl(.sample))
        } throws: { error in
            (error as? ControlError)?.description.contains("No such file or directory") == true
        }
    }
}
