import ArgumentParser
import Testing

@testable import voicechat

/// Every number of seconds a command takes is checked at start-up: not a number, infinite, too
/// large, negative or zero is refused with a message that names the option, never a crash.
@Suite struct DurationOptionTests {
    static let bad = ["nan", "inf", "1e300", "-1", "0"]

    @Test(arguments: bad)
    func everyDurationRefusesWhatIsNotALengthOfTime(_ value: String) {
        let messages = [
            parseRefusal(CallCommand.self, ["127.0.0.1:7300", "--duration", value]),
            parseRefusal(ListenCommand.self, ["--duration", value]),
            parseRefusal(
                JoinCommand.self,
                [
                    "--relay", "127.0.0.1:7700", "--match", "m", "--name", "a", "--token", "t",
                    "--channel", "all", "--duration", value,
                ]),
            parseRefusal(DemoCommand.self, ["--duration", value]),
            parseRefusal(LoopbackCommand.self, ["--input", "in.wav", "--output", "out.wav", "--duration", value]),
            parseRefusal(RelayCommand.self, ["--port", "7700", "--secret-file", "relay.secret", "--duration", value]),
        ]
        for message in messages {
            #expect(
                message?.contains("'--duration <seconds>'") == true
                    && message?.contains("more than 0 and at most 31536000 seconds") == true,
                "\(value): \(message ?? "accepted")")
        }
    }

    @Test func theRelaysIntervalsAreCheckedToo() {
        for value in Self.bad where value != "0" {
            let liveness = parseRefusal(
                RelayCommand.self, ["--port", "7700", "--secret-file", "s", "--liveness-timeout", value])
            #expect(liveness?.contains("'--liveness-timeout <seconds>'") == true, "\(value): \(liveness ?? "accepted")")
        }
        for value in ["nan", "inf", "1e300"] {
            let report = parseRefusal(
                RelayCommand.self, ["--port", "7700", "--secret-file", "s", "--report-every", value])
            #expect(report?.contains("'--report-every <seconds>': it ") == true, "\(value): \(report ?? "accepted")")
        }
        #expect(
            parseRefusal(
                RelayCommand.self, ["--port", "7700", "--secret-file", "s", "--report-every", "0", "--duration", "30"])
                == nil)
        #expect(parseRefusal(CallCommand.self, ["127.0.0.1:7300", "--duration", "30"]) == nil)
    }
}
