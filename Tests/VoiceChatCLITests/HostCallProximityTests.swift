import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceTestHarness

/// Two `voicechat join` processes through `voicechat relay` on a positional channel, each setting
/// only its own position over its control socket, as a game would: the relay tells each where the
/// other stands, so bob, on a stereo speaker (a WAV file), hears alice on the side she stands on,
/// and fainter as she walks away. Real time: paced suite.
@Suite struct HostCallProximityTests {
    static let secret = "0123456789abcdef0123456789abcdef"
    static let toneHertz = 700.0

    /// `seconds` of a tone in syllable-like bursts (400 ms on, 100 ms off), or of silence.
    static func writeTone(_ path: String, seconds: Double, amplitude: Float) throws {
        let count = Int(seconds * 48_000)
        let samples = (0..<count).map { index -> Float in
            guard index % 24_000 < 19_200 else { return 0 }
            return amplitude * Float(sin(2 * Double.pi * toneHertz * Double(index) / 48_000))
        }
        try WAVAudio(format: AudioFormat(sampleRate: 48_000, channels: 1), samples: samples).write(toFile: path)
    }

    /// Frames written to a growing 16-bit stereo WAV so far.
    static func framesWritten(_ path: String) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return max(0, size - 44) / 4
    }

    /// The tone's level on one channel of interleaved stereo `samples`, frames `range` (Goertzel).
    static func level(_ samples: [Float], channel: Int, frames range: Range<Int>) -> Double {
        let omega = 2 * Double.pi * toneHertz / 48_000
        let coefficient = 2 * cos(omega)
        var previous = 0.0
        var beforePrevious = 0.0
        for frame in range {
            let current = Double(samples[frame * 2 + channel]) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return (2 * max(power, 0)).squareRoot() / Double(max(range.count, 1))
    }

    @Test func aStereoListenerHearsAPlayerOnTheirSideAndFainterFartherAway() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = try CommandRunner.secretFile(Self.secret, in: directory)
        let port = TestPort.proximity.port
        let relay = try BackgroundCommand.relay(port: port, secretFile: secretFile, seconds: 40, directory: directory)
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")
        let tone = directory.appendingPathComponent("tone.wav").path
        let silence = directory.appendingPathComponent("silence.wav").path
        try Self.writeTone(tone, seconds: 20, amplitude: 0.3)
        try Self.writeTone(silence, seconds: 20, amplitude: 0)
        let heard = directory.appendingPathComponent("bob-heard.wav").path
        let sockets = ["alice", "bob"].map { "/tmp/vc-proximity-\($0)-\(getpid()).sock" }

        func join(_ name: String, input: String, socket: String, options: [String]) throws -> BackgroundCommand {
            let token = try CommandRunner.token(secretFile: secretFile, match: "arena", participant: name)
            return try BackgroundCommand(
                executable: CommandRunner.executable.path,
                arguments: [
                    "join", "--relay", "127.0.0.1:\(port)", "--match", "arena", "--name", name, "--token", token,
                    "--channel", "field", "--path", "relay", "--input", input, "--control", socket,
                    "--duration", "14",
                ] + options,
                directory: directory, label: name)
        }
        let alice = try join("alice", input: tone, socket: sockets[0], options: ["--output", "/dev/null"])
        let bob = try join(
            "bob", input: silence, socket: sockets[1], options: ["--output", heard, "--speaker-channels", "2"])
        defer {
            alice.stop()
            bob.stop()
        }
        func transcript() -> String {
            "alice: \(alice.standardOutput)\(alice.standardError)\nbob: \(bob.standardOutput)\(bob.standardError)"
        }
        #expect(alice.waitForOutput("path to bob: relay", seconds: 15), "\(transcript())")
        #expect(bob.waitForOutput("path to alice: relay", seconds: 15), "\(transcript())")
        func send(_ line: String, to player: Int) throws {
            let reply = try ControlSocketClient.request(line, socket: sockets[player])
            #expect(reply.contains(#""ok":true"#), "\(line) → \(reply)")
        }
        let proximity = #"{"command":"set-proximity","channel":"field","range":40,"rolloff":"linear"}"#
        try send(proximity, to: 0)
        try send(proximity, to: 1)
        // bob at the origin, +x to his right; alice 5 to his right, then 30.
        // Each says only where it stands itself: the relay tells the other (before, each had to be
        // told the other's position by hand, or heard nothing).
        try send(#"{"command":"set-position","x":0,"y":0,"z":0,"right":[1,0,0]}"#, to: 1)
        func placeAlice(at x: Int) throws {
            try send(#"{"command":"set-position","x":\#(x),"y":0,"z":0}"#, to: 0)
        }
        let watch = MachineStallWatch()
        try placeAlice(at: 5)
        let near = Self.framesWritten(heard)
        Thread.sleep(forTimeInterval: 3.5)  // audio to measure, in real time
        try placeAlice(at: 30)
        let far = Self.framesWritten(heard)
        Thread.sleep(forTimeInterval: 3.5)
        let end = Self.framesWritten(heard)
        let machine = watch.finish()
        #expect(alice.waitForExit(seconds: 20) == 0, "\(transcript())")
        #expect(bob.waitForExit(seconds: 10) == 0, "\(transcript())")

        let audio = try WAVAudio(contentsOfFile: heard)
        #expect(audio.format.channels == 2)
        // Each phase from 0.7 s after the move (the relay, the jitter buffer and the file's writer
        // lag it by a little) to its end.
        let settle = 33_600
        let nearFrames = (near + settle)..<min(far, audio.frameCount)
        let farFrames = (far + settle)..<min(end, audio.frameCount)
        try #require(nearFrames.count > 48_000 && farFrames.count > 48_000, "\(near) \(far) \(end) \(audio.frameCount)")
        let nearLeft = Self.level(audio.samples, channel: 0, frames: nearFrames)
        let nearRight = Self.level(audio.samples, channel: 1, frames: nearFrames)
        let farLeft = Self.level(audio.samples, channel: 0, frames: farFrames)
        let farRight = Self.level(audio.samples, channel: 1, frames: farFrames)
        let context =
            "near L \(nearLeft) R \(nearRight), far L \(farLeft) R \(farRight); machine: \(machine)\n\(transcript())"
        #expect(nearRight > 0.02, "\(context)")
        #expect(20 * log10(nearRight / max(nearLeft, 1e-9)) >= 6, "alice stands to bob's right: \(context)")
        #expect(20 * log10(farRight / max(farLeft, 1e-9)) >= 6, "\(context)")
        // Linear from 1 at 1 to 0 at 40: 0.974 at 5, 0.256 at 30 (−11.6 dB).
        #expect(20 * log10(farRight / nearRight) <= -6, "fainter farther away: \(context)")
    }
}
