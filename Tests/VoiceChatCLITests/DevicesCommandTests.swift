import Foundation
import Testing

@Suite struct DevicesCommandTests {
    @Test func listsThePCMsOfTheALSAConfiguration() throws {
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
        """.write(to: configuration, atomically: true, encoding: .utf8)

        let result = try CommandRunner.run(["devices"], environment: ["ALSA_CONFIG_PATH": configuration.path])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("testmic"))
        #expect(result.standardOutput.contains("Test microphone"))
        #expect(result.standardOutput.contains("null"))
    }

    @Test func captureOnlyAndPlaybackOnlyExcludeEachOther() throws {
        let result = try CommandRunner.run(["devices", "--capture-only", "--playback-only"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("exclude each other"))
    }
}
