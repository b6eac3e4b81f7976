import ArgumentParser
import Testing

@testable import voicechat

/// Every numeric option of every command goes through one check at start-up: nan, inf, a number
/// below or far above its range, and an empty string are refused with exit 64 and a message that
/// names the option, never a crash; and a negative number is read as a value, not as a missing one.
@Suite struct NumericOptionTests {
    /// A command's required arguments, and its numeric options; a signed option's range holds -1.
    struct Case: CustomStringConvertible, Sendable {
        var command: [String]
        var options: [String]
        var signed: Set<String> = []
        var description: String { command[0] }
    }

    static let callOptions = [
        "--device-rate", "--device-channels", "--speaker-channels", "--period-frames", "--frame-ms", "--bitrate",
        "--complexity", "--max-delay-ms", "--vad-threshold-db", "--duration",
    ]
    static let files = ["--input", "in.wav", "--output", "out.wav"]

    static let cases: [Case] = [
        Case(
            command: ["simulate"] + files,
            options: [
                "--loss", "--burst", "--delay-ms", "--jitter-ms", "--duplicate", "--drift-ppm", "--seed", "--frame-ms",
                "--bitrate", "--complexity",
            ], signed: ["--drift-ppm"]),
        Case(
            command: ["loopback"] + files,
            options: [
                "--device-rate", "--device-channels", "--speaker-channels", "--period-frames", "--frame-ms",
                "--bitrate",
                "--complexity", "--duration",
            ]),
        Case(command: ["listen"], options: ["--port", "--accept"] + callOptions, signed: ["--vad-threshold-db"]),
        Case(
            command: ["call", "127.0.0.1:7300"], options: ["--connect-timeout"] + callOptions,
            signed: ["--vad-threshold-db"]),
        Case(
            command: ["echo-test", "127.0.0.1:7300"], options: ["--connect-timeout"] + callOptions,
            signed: ["--vad-threshold-db"]),
        Case(
            command: ["join", "--relay", "127.0.0.1:7700", "--match", "m", "--name", "a", "--token", "t"],
            options: callOptions, signed: ["--vad-threshold-db"]),
        Case(
            command: ["demo"], options: ["--duration", "--complexity", "--max-delay-ms", "--vad-threshold-db"],
            signed: ["--vad-threshold-db"]),
        Case(command: ["relay", "--secret-file", "s"], options: ["--port"]),
        Case(
            command: ["relay", "--port", "7700", "--secret-file", "s"],
            options: [
                "--prometheus-port", "--liveness-timeout", "--report-every", "--duration", "--drain-deadline",
                "--match-players",
            ]),
        Case(command: ["token", "--secret-file", "s", "--match", "m", "--participant", "p"], options: ["--ttl"]),
    ]

    /// The exit code and message `arguments` are refused with at start-up, or nil when accepted.
    private func refusal(_ arguments: [String]) -> (code: Int32, message: String)? {
        do {
            _ = try VoiceChat.parseAsRoot(arguments)
            return nil
        } catch {
            return (VoiceChat.exitCode(for: error).rawValue, VoiceChat.message(for: error))
        }
    }

    @Test(arguments: cases)
    func everyNumericOptionRefusesWhatIsNotInItsRange(_ testCase: Case) {
        for option in testCase.options {
            let below = testCase.signed.contains(option) ? "-1e99" : "-1"
            for value in ["nan", "inf", below, "1e99", ""] {
                let refused = refusal(testCase.command + [option, value])
                #expect(
                    refused?.code == 64,
                    "\(testCase.command[0]) \(option) '\(value)': \(refused?.message ?? "accepted")")
                #expect(
                    refused?.message.contains("'\(option) <") == true,
                    "\(testCase.command[0]) \(option) '\(value)': \(refused?.message ?? "accepted")")
            }
        }
    }

    @Test func relayAdminCoordinatesGoThroughTheSameCheck() {
        for value in ["nan", "inf", "1e99", "", "north"] {
            let refused = refusal(["relay-admin", "--socket", "s", "position", "m", "p", value, "0", "0"])
            #expect(refused?.code == 64, "'\(value)': \(refused?.message ?? "accepted")")
            #expect(
                refused?.message.contains("x \"\(value)\"") == true, "'\(value)': \(refused?.message ?? "accepted")")
        }
        #expect(refusal(["relay-admin", "--socket", "s", "position", "m", "p", "-4.5", "0", "1e3"]) == nil)
    }

    /// `--drift-ppm -50`, `--seed 7`, `--ttl 60` and `--vad-threshold-db -45` parse without `=`; a negative
    /// value where none is allowed names the range instead of a missing value.
    @Test func negativeNumbersAreValuesEverywhere() {
        #expect(refusal(["simulate"] + Self.files + ["--drift-ppm", "-50", "--seed", "7"]) == nil)
        #expect(refusal(["listen", "--vad-threshold-db", "-45"]) == nil)
        let seed = refusal(["simulate"] + Self.files + ["--seed", "-1"])
        #expect(seed?.message.contains("it must be 0…18446744073709551615") == true, "\(seed?.message ?? "accepted")")
        let ttl = refusal(["token", "--secret-file", "s", "--match", "m", "--participant", "p", "--ttl", "-5"])
        #expect(ttl?.message.contains("it must be 1…315360000 seconds") == true, "\(ttl?.message ?? "accepted")")
    }

    /// The range is the message: `--connect-timeout 0` says it must be more than 0, `--delay-ms nan` that
    /// it is no number, and `--bitrate 0` Opus's range.
    @Test func theMessageSaysWhatTheOptionTakes() {
        let timeout = refusal(["call", "127.0.0.1:7300", "--connect-timeout", "0"])?.message ?? "accepted"
        #expect(timeout.contains("it must be more than 0 and at most 120 seconds"), "\(timeout)")
        let delay = refusal(["simulate"] + Self.files + ["--delay-ms", "nan"])?.message ?? "accepted"
        #expect(delay.contains("it is not a finite number; give 0…60000 ms"), "\(delay)")
        let bitrate = refusal(["call", "127.0.0.1:7300", "--bitrate", "0"])?.message ?? "accepted"
        #expect(bitrate.contains("it must be 6000…510000 bit/s"), "\(bitrate)")
        let seed = refusal(["simulate"] + Self.files + ["--seed", "18446744073709551615"])
        #expect(seed == nil, "\(seed?.message ?? "")")
    }
}
