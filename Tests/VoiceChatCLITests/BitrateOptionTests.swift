import ArgumentParser
import Testing

@testable import voicechat

/// Every command that encodes checks its bitrate at start-up against Opus's range, naming the
/// option, and a value that is no number of bits (nan, inf, 1e300) is refused, never a crash.
@Suite struct BitrateOptionTests {
    private func refusals(_ value: String) -> [String?] {
        [
            parseRefusal(CallCommand.self, ["127.0.0.1:7300", "--bitrate", value]),
            parseRefusal(ListenCommand.self, ["--bitrate", value]),
            parseRefusal(LoopbackCommand.self, ["--input", "in.wav", "--output", "out.wav", "--bitrate", value]),
            parseRefusal(SimulateCommand.self, ["--input", "in.wav", "--output", "out.wav", "--bitrate", value]),
        ]
    }

    @Test(arguments: ["5", "600k"])
    func aBitrateOutsideOpusRangeIsRefusedByName(_ value: String) {
        for message in refusals(value) {
            #expect(
                message?.contains("'--bitrate <bitrate>': it must be 6") == true,
                "\(value): \(message ?? "accepted")")
        }
    }

    @Test(arguments: ["nan", "inf", "1e300", "-32k", "fast"])
    func aBitrateThatIsNoNumberOfBitsIsRefused(_ value: String) {
        for message in refusals(value) {
            #expect(message?.contains("--bitrate") == true, "\(value): \(message ?? "accepted")")
        }
    }
}
