import Foundation
import Testing

@Suite struct DevicesCommandTests {
    /// What opens is listed with its rates and channels; what does not (a plugin with nothing
    /// behind it, `default` on a machine without a card) is counted, and listed with why under
    /// --all; with no card, the list ends by saying what to use instead.
    @Test func listsWhatOpensWithItsRatesAndChannelsAndCountsWhatDoesNot() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = directory.appendingPathComponent("alsa.conf")
        try """
        </usr/share/alsa/alsa.conf>
        pcm.testmic {
            type file
            slave.pcm "null"
            file "/dev/null"
            infile "/dev/zero"
            format "raw"
            hint { show on description "Test microphone" }
        }
        pcm.broken {
            type plug
            slave.pcm "nosuchpcm"
            hint { show on description "Broken plug" }
        }
        """.write(to: configuration, atomically: true, encoding: .utf8)
        let environment = ["ALSA_CONFIG_PATH": configuration.path]

        let listed = try CommandRunner.run(["devices"], environment: environment)
        #expect(listed.status == 0, "stderr: \(listed.standardError)")
        let lines = listed.standardOutput.split(separator: "\n").map(String.init)
        let testmic = try #require(lines.firstIndex { $0.hasPrefix("testmic  Test microphone") })
        #expect(lines[testmic + 1] == "    capture: any rate, any number of channels")
        #expect(lines.contains { $0.hasPrefix("null  ") })
        #expect(!lines.contains { $0.hasPrefix("broken") })
        #expect(!lines.contains { $0.hasPrefix("samplerate") })
        #expect(lines.contains { $0.contains("more PCMs do not open here") && $0.contains("--all lists them") })

        let everything = try CommandRunner.run(["devices", "--all"], environment: environment)
        #expect(everything.status == 0)
        #expect(everything.standardOutput.contains("  broken: capture: "))
        #expect(everything.standardOutput.contains("\n  default: ") || everything.standardOutput.hasPrefix("default"))
        #expect(everything.standardOutput.contains("jack  (a sound server's PCM; not opened)"))
        if !lines.contains(where: { $0.hasPrefix("hw:") || $0.hasPrefix("plughw:") }) {
            #expect(listed.standardOutput.contains("no sound card here: use WAV files instead"))
        }
    }

    @Test func captureOnlyAndPlaybackOnlyExcludeEachOther() throws {
        let result = try CommandRunner.run(["devices", "--capture-only", "--playback-only"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("exclude each other"))
    }
}
