import Foundation
import Synchronization
import Testing
import VoiceCore

@Suite struct AudioThreadTests {
    /// The name the kernel shows for the calling thread (what top and perf print).
    static func currentThreadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .newlines)
    }

    @Test func aThreadCarriesItsNameCutToWhatLinuxKeeps() throws {
        let seen = Mutex<[String]>([])
        for name in ["voice-engine", "playback e2e_b_spk", "abcdefghijklmnö"] {
            let thread = try AudioThread(name: name, scheduling: .normal) { _ in
                let current = Self.currentThreadName()
                seen.withLock { $0.append(current) }
            }
            thread.join()
        }
        // 15 bytes at most, never half a character.
        #expect(seen.withLock { $0 } == ["voice-engine", "playback e2e_b_", "abcdefghijklmn"])
    }
}
